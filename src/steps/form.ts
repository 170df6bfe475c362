/**
 * An `ask` form: the manifest's fields → the `requestedSchema` of an elicitation form (a flat object
 * of primitive fields, single- and multi-selects as SEP-1330 shapes them), checked once when the
 * manifest loads, and a validator for the answers that fills in declared defaults.
 */

import { problems } from '../errors.js';
import type { EntryPath, KindContext } from '../kinds/contract/kinds.js';
import type { FieldConfig } from '../kinds/contract/step-fields.js';
import type { JsonSchema } from '../kinds/contract/types.js';
import { createSchemaCompiler, type Validator } from '../manifest/user-schemas.js';

export interface CompiledForm {
  /** The `requestedSchema` sent to the client. */
  readonly schema: JsonSchema;
  /** Fills declared defaults into `content` and says what is wrong with it, if anything. */
  readonly validate: Validator;
  /** Each field as an extra input the tool's kind may read (type and choices, never required). */
  readonly inputs: Readonly<Record<string, JsonSchema>>;
}

const compileSchema = createSchemaCompiler();

/** Keywords that only make sense on some field types. */
const ONLY_ON: Readonly<Record<string, readonly string[]>> = {
  enum: ['string'],
  enumNames: ['string'],
  oneOf: ['string'],
  minLength: ['string'],
  maxLength: ['string'],
  format: ['string'],
  minimum: ['number', 'integer'],
  maximum: ['number', 'integer'],
  items: ['array'],
  minItems: ['array'],
  maxItems: ['array'],
};

export function compileForm(
  fields: Readonly<Record<string, FieldConfig>>,
  at: EntryPath,
  ctx: KindContext,
): CompiledForm | undefined {
  let ok = true;
  const fail = (path: EntryPath, message: string) => {
    ok = false;
    ctx.error([...at, ...path], problems.MANIFEST_INVALID_VALUE(message));
  };
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const inputs: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(fields)) {
    const { required: flag, ...schema } = field;
    for (const [keyword, types] of Object.entries(ONLY_ON)) {
      if (keyword in field && !types.includes(field.type))
        fail(
          [name, keyword],
          `${keyword} applies to a field of type ${types.join(' or ')}, not ${field.type}`,
        );
    }
    if (field.enum && field.oneOf) fail([name], 'a field takes enum or oneOf, not both');
    if (field.enumNames && field.enumNames.length !== field.enum?.length)
      fail([name, 'enumNames'], 'enumNames needs an enum with exactly as many values');
    if (field.type === 'array' && !field.items?.enum === !field.items?.anyOf)
      fail([name, 'items'], 'a multi-select (type array) needs items with enum or anyOf (exactly one)');
    const property =
      field.type === 'array' ? { ...schema, items: { type: 'string', ...schema.items } } : schema;
    if (field.type === 'array' && field.items?.anyOf) delete (property.items as { type?: string }).type;
    if ('default' in field) {
      try {
        const { default: value, ...rule } = property;
        const mismatch = compileSchema(rule)(structuredClone(value));
        if (mismatch) fail([name, 'default'], `the default does not fit the field: ${mismatch}`);
      } catch (err) {
        fail([name], `not a valid field schema: ${(err as Error).message}`);
      }
    }
    properties[name] = property;
    if (flag ?? !('default' in field)) required.push(name);
    inputs[name] = compactInput(field);
  }
  if (!ok) return undefined;
  const schema: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
  };
  let validate: Validator;
  try {
    validate = compileSchema(schema);
  } catch (err) {
    ctx.error(at, problems.SCHEMA_INVALID((err as Error).message));
    return undefined;
  }
  return { schema, validate, inputs };
}

/** What a kind needs to know of an answer: its type and its allowed values. */
function compactInput(field: FieldConfig): JsonSchema {
  const input: JsonSchema = { type: field.type, required: false };
  if (field.description !== undefined) input.description = field.description;
  const values = field.enum ?? field.oneOf?.map((choice) => choice.const);
  if (values) input.enum = [...values];
  if (field.type === 'array') {
    const items = field.items?.enum ?? field.items?.anyOf?.map((choice) => choice.const);
    input.items = { type: 'string', ...(items && { enum: [...items] }) };
  }
  return input;
}

/** The fields' titles (or names), for a form declared without a message. */
export function defaultFormMessage(fields: Readonly<Record<string, FieldConfig>>): string {
  const names = Object.entries(fields).map(([name, field]) => field.title ?? name);
  return `Please provide: ${names.join(', ')}.`;
}
