/**
 * One operation as one `http` tool. Parameters and the fields of the request body become the
 * tool's `input` (JSON Schema properties, required unless the document says otherwise or gives a
 * default); the path, `query`, `headers` and `body` place each argument by name (`"{{name}}"`, a
 * typed value), so the wire names stay the API's while argument names stay valid identifiers. The
 * success response's schema becomes `outputSchema`, wrapped as `{result: …}` when it is not an
 * object, as the http tool wraps such answers. Annotations are left to the http kind, which
 * derives them from the method.
 */
import { CLIENT_OWNED_HEADERS } from '../util/http-headers.js';
import { isObj, type Obj } from './load.js';
import { argumentName, UniqueNames } from './naming.js';
import type { Operation, Parameter } from './operations.js';
import { isObjectSchema } from './schema.js';

export interface ToolDraft {
  readonly config: Obj;
  /** Comments for the reader: what was left out, and why. */
  readonly notes: string[];
}

/** Headers the API description may list but the http tool sets itself (or may not send). */
const SKIPPED_HEADERS = new Set(['accept', 'content-type', 'authorization', ...CLIENT_OWNED_HEADERS]);

/**
 * `lookup` gives the shared schema a `$ref: '#/schemas/X'` names, to tell whether an answer is an
 * object (kept as it is) or something else (wrapped as `{result: …}`).
 */
export function toolDraft(
  op: Operation,
  source: string,
  lookup?: (ref: string) => Obj | undefined,
): ToolDraft {
  const notes: string[] = [];
  const names = new UniqueNames();
  const input: Obj = {};
  const query: Obj = {};
  const headers: Obj = {};
  let path = op.path;

  /** The argument's name: the parameter's own when free, else prefixed with where it goes. */
  const claim = (wire: string, place: string, lowerCase = false): string => {
    const plain = argumentName(wire, lowerCase);
    return names.take(names.has(plain) ? `${place}_${plain}` : plain);
  };

  for (const p of op.parameters.filter((p) => p.in === 'path')) {
    const arg = claim(p.name, 'path');
    path = path.replaceAll(`{${p.name}}`, `{${arg}}`);
    input[arg] = property(p.schema, p.description, true, p.deprecated);
  }
  for (const match of path.matchAll(/\{([^{}]*)\}/g)) {
    const name = match[1]!;
    if (name in input) continue;
    const arg = claim(name, 'path');
    path = path.replaceAll(`{${name}}`, `{${arg}}`);
    input[arg] = { type: 'string' };
    notes.push(`{${name}} is in the path but not among the parameters; declared as a string.`);
  }
  for (const p of op.parameters.filter((p) => p.in === 'query')) {
    const arg = claim(p.name, 'query');
    query[p.name] = placeholder(arg, p);
    input[arg] = property(p.schema, p.description, p.required, p.deprecated);
  }
  for (const p of op.parameters.filter((p) => p.in === 'header')) {
    if (SKIPPED_HEADERS.has(p.name.toLowerCase())) {
      notes.push(`Header ${p.name} is set by mcp-run, not by an argument.`);
      continue;
    }
    const arg = claim(p.name, 'header', true);
    headers[p.name] = placeholder(arg, p);
    input[arg] = property(p.schema, p.description, p.required, p.deprecated);
  }
  for (const p of op.parameters.filter((p) => p.in === 'cookie')) {
    notes.push(`Cookie parameter ${p.name} is not sent: http tools do not send cookies.`);
  }

  let body: unknown;
  const b = op.body;
  if (b && (op.method === 'GET' || op.method === 'HEAD')) {
    notes.push(`The document gives this ${op.method} a request body; it is not sent.`);
  } else if (b && b.encoding !== 'text' && isObj(b.schema.properties) && isObjectSchema(b.schema)) {
    const fields: Obj = {};
    const requiredFields = Array.isArray(b.schema.required) ? b.schema.required : [];
    for (const [field, schema] of Object.entries(b.schema.properties)) {
      if (!isObj(schema) || schema.readOnly === true) continue;
      const arg = claim(field, 'body');
      fields[field] = `{{${arg}}}`;
      input[arg] = property(schema, undefined, b.required && requiredFields.includes(field));
    }
    if (b.schema.additionalProperties !== undefined && b.schema.additionalProperties !== false) {
      notes.push('The body may carry more fields than it declares; only the declared ones are arguments.');
    }
    body = fields;
  } else if (b) {
    const arg = claim('body', 'request');
    body = `{{${arg}}}`;
    // `format: binary` names bytes; the argument is the string whose UTF-8 bytes are sent.
    const { format, ...rest } = b.schema;
    const schema =
      b.encoding === 'text'
        ? { ...rest, type: 'string', ...(format !== 'binary' && format !== undefined && { format }) }
        : b.schema;
    const said =
      b.mediaType === undefined
        ? b.description
        : [b.description, `The request body (${b.mediaType}), sent as the UTF-8 bytes of this string.`]
            .filter(Boolean)
            .join(' ');
    input[arg] = property(schema, said, b.required);
    if (b.mediaType !== undefined) headers['Content-Type'] = b.mediaType;
  }

  const output =
    op.output && (isObjectSchema(op.output, lookup) ? asObject(op.output) : wrapResult(op.output));
  const config: Obj = {
    kind: 'http',
    source,
    ...describe(op),
    // The first tag groups the tool for browse and search in a big catalog (docs/big-catalogs.md).
    ...(op.tags[0] !== undefined && op.tags[0] !== '' && { group: op.tags[0] }),
    method: op.method,
    path,
    ...(Object.keys(query).length > 0 && { query }),
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(body !== undefined && { body }),
    ...(body !== undefined && b && b.encoding !== 'json' && { bodyType: b.encoding }),
    ...(Object.keys(input).length > 0 && { input }),
    ...(output && { outputSchema: output }),
  };
  return { config, notes };
}

/** `"{{arg}}"` (the typed value), or a template joining an array into one value (`a,b`). */
function placeholder(arg: string, p: Parameter): string {
  if (p.joinWith === undefined) return `{{${arg}}}`;
  return `{{#each ${arg}}}{{#unless @first}}${p.joinWith}{{/unless}}{{this}}{{/each}}`;
}

/**
 * An `input` property: the schema with the parameter's description, and `required: false` when it
 * is optional and has no default. An object whose own `required` list would clash with that flag
 * keeps the list under `allOf`.
 */
function property(
  schema: Obj,
  description: string | undefined,
  required: boolean,
  deprecated?: boolean,
): Obj {
  const out: Obj = { ...schema };
  if (description !== undefined) out.description = description;
  if (deprecated) out.deprecated = true;
  if (!required && out.default === undefined) {
    if (Array.isArray(out.required)) {
      out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { required: out.required }];
      delete out.required;
    }
    out.required = false;
  }
  return out;
}

/** MCP clients require `type: object` at the top of an outputSchema, exactly (not a list). */
function asObject(schema: Obj): Obj {
  if (schema.type === 'object') return schema;
  const { type: _, ...rest } = schema;
  return { type: 'object', ...rest };
}

function wrapResult(schema: Obj): Obj {
  return { type: 'object', properties: { result: schema }, required: ['result'] };
}

/** `description` from the description, else the summary; a short summary next to a description is the `title`. */
function describe(op: Operation): Obj {
  const summary = op.summary?.replace(/\s+/g, ' ');
  const title =
    summary !== undefined && op.description !== undefined && summary.length <= 80
      ? summary.replace(/\.$/, '')
      : undefined;
  let description = op.description ?? summary ?? `${op.method} ${op.path}`;
  if (op.deprecated) description = `Deprecated. ${description}`;
  return { ...(title !== undefined && { title }), description };
}
