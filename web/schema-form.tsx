/**
 * A form generated from a JSON Schema (a tool's inputSchema, an elicitation's requestedSchema):
 * nested objects as fieldsets, arrays as lists with add and remove, enums and `oneOf` of consts as
 * selects, other `oneOf`/`anyOf` as a choice of variant, defaults filled in, required fields marked.
 * The value is checked with ajv against the schema itself before it is sent; each message sits
 * under its field.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import { useState } from 'preact/hooks';
import type { Json } from './mcp.js';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const compiled = new WeakMap<object, ReturnType<typeof ajv.compile> | null>();

/** Field path (`/a/0/b`) → the messages about it. Empty: valid. */
export type FieldErrors = Map<string, string[]>;

export function validate(schema: Json, value: Json): FieldErrors {
  const errors: FieldErrors = new Map();
  if (schema === undefined || schema === null || typeof schema !== 'object') return errors;
  let check = compiled.get(schema);
  if (check === undefined) {
    try {
      check = ajv.compile(schema);
    } catch {
      check = null;
    }
    compiled.set(schema, check);
  }
  if (check === null || check(value)) return errors;
  for (const e of check.errors ?? []) {
    // A failed oneOf/anyOf also reports each variant's failures: the variant's own field says enough.
    if (e.keyword === 'if') continue;
    const missing =
      e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : '';
    const path = `${e.instancePath}${missing}`;
    const message = e.keyword === 'required' ? 'required' : (e.message ?? 'invalid');
    const list = errors.get(path) ?? [];
    if (!list.includes(message)) list.push(message);
    errors.set(path, list);
  }
  return errors;
}

/** `#/$defs/x` and `#/definitions/x` inside the root schema. */
function resolve(schema: Json, root: Json): Json {
  let s = schema;
  for (let hops = 0; hops < 16 && s && typeof s.$ref === 'string' && s.$ref.startsWith('#/'); hops++) {
    let target: Json = root;
    for (const part of s.$ref.slice(2).split('/'))
      target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (target === undefined) break;
    const { $ref: _ref, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s ?? {};
}

function typeOf(schema: Json): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x: string) => x !== 'null');
  if (typeof t === 'string') return t;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

const variantsOf = (schema: Json): Json[] | undefined =>
  Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
const allConst = (variants: Json[]) => variants.every((v) => v && 'const' in v);

/** The starting value of a schema: its default, and for an object the defaults of its properties. */
export function initialValue(schema: Json, root: Json = schema): Json {
  const s = resolve(schema, root);
  if (s.default !== undefined) return structuredClone(s.default);
  if (typeOf(s) === 'object' && s.properties) {
    const out: Json = {};
    const required = new Set<string>(s.required ?? []);
    for (const [name, property] of Object.entries<Json>(s.properties)) {
      const p = resolve(property, root);
      const v =
        p.default !== undefined || (required.has(name) && typeOf(p) === 'object')
          ? initialValue(p, root)
          : undefined;
      if (v !== undefined) out[name] = v;
    }
    return out;
  }
  return undefined;
}

interface FieldProps {
  readonly schema: Json;
  readonly root: Json;
  readonly path: string;
  readonly label: string;
  readonly value: Json;
  readonly required: boolean;
  readonly errors: FieldErrors;
  readonly onChange: (value: Json) => void;
}

const idOf = (form: string, path: string) => `${form}${path.replace(/[^\w-]/g, '_')}`;

export function SchemaForm(props: {
  readonly id: string;
  readonly schema: Json;
  readonly value: Json;
  readonly errors: FieldErrors;
  readonly onChange: (value: Json) => void;
}) {
  const schema = props.schema ?? { type: 'object' };
  const s = resolve(schema, schema);
  const properties = Object.entries<Json>(s.properties ?? {});
  if (typeOf(s) === 'object' && properties.length === 0 && !s.additionalProperties)
    return <p class="muted">No arguments.</p>;
  return (
    <div class="schema-form" id={props.id}>
      <Field
        schema={schema}
        root={schema}
        path=""
        label=""
        value={props.value}
        required
        errors={props.errors}
        onChange={props.onChange}
        form={props.id}
      />
    </div>
  );
}

function Field(props: FieldProps & { readonly form: string }) {
  const s = resolve(props.schema, props.root);
  const id = idOf(props.form, props.path || '/root');
  const messages = props.errors.get(props.path) ?? [];
  const errorId = `${id}-error`;
  const described = [s.description ? `${id}-desc` : '', messages.length ? errorId : '']
    .filter(Boolean)
    .join(' ');
  const title = s.title && s.title !== props.label ? s.title : undefined;
  const labelText = (
    <>
      {props.label}
      {title && <span class="muted"> ({title})</span>}
      {props.required && props.label && (
        <span class="required" title="required">
          {' '}
          *
        </span>
      )}
    </>
  );
  const help = (
    <>
      {s.description && (
        <small id={`${id}-desc`} class="muted">
          {s.description}
        </small>
      )}
      {messages.length > 0 && (
        <small id={errorId} class="field-error" role="alert">
          {messages.join('; ')}
        </small>
      )}
    </>
  );
  const common = {
    id,
    'aria-describedby': described || undefined,
    'aria-invalid': messages.length > 0 || undefined,
    'aria-required': props.required || undefined,
    name: props.path,
  };
  const variants = variantsOf(s);
  const enumValues: Json[] | undefined = Array.isArray(s.enum)
    ? s.enum
    : variants && allConst(variants)
      ? variants.map((v) => v.const)
      : undefined;

  if (enumValues) {
    const titles =
      variants && allConst(variants) ? variants.map((v) => v.title ?? String(v.const)) : undefined;
    const index = enumValues.findIndex((v) => JSON.stringify(v) === JSON.stringify(props.value));
    return (
      <div class="field">
        <label for={id}>{labelText}</label>
        <select
          {...common}
          value={index === -1 ? '' : String(index)}
          onChange={(e) => {
            const i = (e.currentTarget as HTMLSelectElement).value;
            props.onChange(i === '' ? undefined : enumValues[Number(i)]);
          }}
        >
          <option value="">{props.required ? '(choose)' : '(none)'}</option>
          {enumValues.map((v, i) => (
            <option key={String(i)} value={String(i)}>
              {titles?.[i] ?? (typeof v === 'string' ? v : JSON.stringify(v))}
            </option>
          ))}
        </select>
        {help}
      </div>
    );
  }
  if (variants)
    return <Variants {...props} schema={s} variants={variants} labelText={labelText} help={help} />;

  const type = typeOf(s);
  if (type === 'object') {
    const required = new Set<string>(s.required ?? []);
    const value = props.value && typeof props.value === 'object' ? props.value : {};
    const properties = Object.entries<Json>(s.properties ?? {});
    const body = properties.map(([name, property]) => (
      <Field
        key={name}
        schema={property}
        root={props.root}
        path={`${props.path}/${name}`}
        label={name}
        value={value[name]}
        required={required.has(name)}
        errors={props.errors}
        form={props.form}
        onChange={(v) => {
          const next = { ...value };
          if (v === undefined) delete next[name];
          else next[name] = v;
          props.onChange(next);
        }}
      />
    ));
    if (properties.length === 0)
      return <JsonField {...props} common={common} labelText={labelText} help={help} />;
    if (props.path === '')
      return (
        <>
          {body}
          {help}
        </>
      );
    return (
      <fieldset class="field" aria-describedby={described || undefined}>
        <legend>{labelText}</legend>
        {body}
        {help}
      </fieldset>
    );
  }
  if (type === 'array') {
    const items: Json[] = Array.isArray(props.value) ? props.value : [];
    const itemSchema = s.items ?? {};
    return (
      <fieldset class="field array" aria-describedby={described || undefined}>
        <legend>{labelText}</legend>
        {items.map((item, i) => (
          <div class="array-item" key={String(i)}>
            <Field
              schema={itemSchema}
              root={props.root}
              path={`${props.path}/${i}`}
              label={`${props.label}[${i}]`}
              value={item}
              required
              errors={props.errors}
              form={props.form}
              onChange={(v) => props.onChange(items.map((x, j) => (j === i ? v : x)))}
            />
            <button
              type="button"
              class="small"
              aria-label={`remove ${props.label}[${i}]`}
              onClick={() => {
                const next = items.filter((_, j) => j !== i);
                props.onChange(next.length === 0 && !props.required ? undefined : next);
              }}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="small"
          aria-label={`add an item to ${props.label}`}
          onClick={() => props.onChange([...items, initialValue(itemSchema, props.root)])}
        >
          Add item
        </button>
        {help}
      </fieldset>
    );
  }
  if (type === 'boolean') {
    return (
      <div class="field check">
        <input
          {...common}
          type="checkbox"
          checked={props.value === true}
          onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)}
        />
        <label for={id}>{labelText}</label>
        {help}
      </div>
    );
  }
  if (type === 'integer' || type === 'number') {
    return (
      <div class="field">
        <label for={id}>{labelText}</label>
        <input
          {...common}
          type="number"
          step={type === 'integer' ? '1' : 'any'}
          min={s.minimum}
          max={s.maximum}
          value={props.value === undefined ? '' : String(props.value)}
          onInput={(e) => {
            const text = (e.currentTarget as HTMLInputElement).value;
            props.onChange(text === '' ? undefined : Number.isNaN(Number(text)) ? text : Number(text));
          }}
        />
        {help}
      </div>
    );
  }
  if (type === 'string') {
    const long = (s.maxLength ?? 0) > 200 || s.format === 'textarea';
    const onInput = (e: Event) => {
      const text = (e.currentTarget as HTMLInputElement).value;
      props.onChange(text === '' && !props.required ? undefined : text);
    };
    return (
      <div class="field">
        <label for={id}>{labelText}</label>
        {long ? (
          <textarea {...common} rows={3} value={props.value ?? ''} onInput={onInput} />
        ) : (
          <input
            {...common}
            type={(s.format === 'email' ? 'email' : s.format === 'uri' ? 'url' : 'text') as 'text'}
            placeholder={s.examples?.[0] !== undefined ? String(s.examples[0]) : undefined}
            value={props.value ?? ''}
            onInput={onInput}
          />
        )}
        {help}
      </div>
    );
  }
  return <JsonField {...props} common={common} labelText={labelText} help={help} />;
}

/** A `oneOf`/`anyOf` of shapes: pick the variant, then fill it in. */
function Variants(
  props: FieldProps & {
    readonly form: string;
    readonly variants: Json[];
    readonly labelText: Json;
    readonly help: Json;
  },
) {
  const fits = props.variants.findIndex((v) => validate(resolve(v, props.root), props.value).size === 0);
  const [chosen, setChosen] = useState(fits === -1 ? 0 : fits);
  const id = idOf(props.form, `${props.path || '/root'}/variant`);
  const name = (v: Json, i: number) => {
    const r = resolve(v, props.root);
    return r.title ?? (r.required ? `with ${r.required.join(', ')}` : (typeOf(r) ?? `option ${i + 1}`));
  };
  const variant = props.variants[chosen] ?? {};
  return (
    <fieldset class="field variants">
      <legend>{props.labelText}</legend>
      <label for={id}>one of</label>
      <select
        id={id}
        value={String(chosen)}
        onChange={(e) => {
          const i = Number((e.currentTarget as HTMLSelectElement).value);
          setChosen(i);
          props.onChange(initialValue(props.variants[i], props.root));
        }}
      >
        {props.variants.map((v, i) => (
          <option key={String(i)} value={String(i)}>
            {name(v, i)}
          </option>
        ))}
      </select>
      <Field {...props} schema={{ ...variant }} label={`${props.label} (${name(variant, chosen)})`} />
      {props.help}
    </fieldset>
  );
}

/** Anything the generator has no widget for: JSON text. */
function JsonField(
  props: FieldProps & { readonly common: Json; readonly labelText: Json; readonly help: Json },
) {
  const [text, setText] = useState(props.value === undefined ? '' : JSON.stringify(props.value));
  return (
    <div class="field">
      <label for={props.common.id}>{props.labelText} (JSON)</label>
      <textarea
        {...props.common}
        rows={2}
        value={text}
        onInput={(e) => {
          const t = (e.currentTarget as HTMLTextAreaElement).value;
          setText(t);
          if (t.trim() === '') props.onChange(undefined);
          else
            try {
              props.onChange(JSON.parse(t));
            } catch {
              props.onChange(t);
            }
        }}
      />
      {props.help}
    </div>
  );
}
