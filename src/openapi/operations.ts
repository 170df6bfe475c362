/**
 * The operations of a document, in document order, each normalised to one shape whatever the
 * version: parameters with JSON Schemas, at most one request body (the media type the http tool can
 * send), and the JSON schema of the success response. Swagger 2.0 is read into the same shape:
 * `in: body` is the body, `in: formData` fields are a form body, `schema` on a response is JSON.
 * Everything an operation uses is inlined here, so nothing later sees a `$ref`.
 */
import type { Spec } from './load.js';
import { isObj, type Obj } from './load.js';
import type { RefResolver } from './refs.js';
import { toJsonSchema } from './schema.js';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly schema: Obj;
  /** An array sent as one value joined with this (`explode: false`, `collectionFormat: csv`). */
  readonly joinWith?: string;
}

export interface Body {
  readonly encoding: 'json' | 'form' | 'text';
  /** The declared media type, when it is not what the encoding sends by default (text/plain). */
  readonly mediaType?: string;
  readonly schema: Obj;
  readonly required: boolean;
  readonly description?: string;
}

/** An operation as the document lists it, before anything in it is read or inlined. */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  readonly tags: readonly string[];
  readonly item: Obj;
  readonly op: Obj;
  /** The file the path item lives in, for the relative refs inside it. */
  readonly file: string;
}

export interface Operation extends Omit<Route, 'item' | 'op' | 'file'> {
  readonly summary?: string;
  readonly description?: string;
  readonly deprecated: boolean;
  readonly parameters: readonly Parameter[];
  readonly body?: Body;
  /** Why the request body cannot be sent (multipart, XML): the operation is then skipped. */
  readonly unsupported?: string;
  /** The JSON schema of the first 2xx response that has one. */
  readonly output?: Obj;
  /** The security requirements that apply (the operation's, else the document's). */
  readonly security: readonly Obj[];
  /** The operation has servers of its own (they are not used: the source has one baseUrl). */
  readonly ownServers: boolean;
}

/** `METHOD path`, as comments and messages name an operation. */
export const routeOf = (op: { method: string; path: string }): string => `${op.method} ${op.path}`;

/** Every operation of the document, in document order; cheap (nothing is inlined yet). */
export function listRoutes(spec: Spec, refs: RefResolver): Route[] {
  const routes: Route[] = [];
  for (const [path, raw] of Object.entries(spec.doc.paths as Obj)) {
    const { value: item, file } = refs.follow(raw, spec.file);
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      routes.push({
        method: method.toUpperCase(),
        path,
        ...(typeof op.operationId === 'string' && op.operationId !== '' && { operationId: op.operationId }),
        tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
        item,
        op,
        file,
      });
    }
  }
  return routes;
}

/**
 * How the success response's schema is read: every reference inlined, the document's schema
 * components kept as `#/schemas/…` references (written once, beside the tools), or not at all.
 */
export type OutputMode = 'inline' | 'shared' | 'none';

/** One operation read in full, with every reference its arguments use inlined. */
export function readOperation(
  route: Route,
  spec: Spec,
  refs: RefResolver,
  outputs: OutputMode = 'inline',
): Operation {
  const { item, op, file, ...named } = route;
  const inline = (node: unknown) => refs.inline(node, file);
  const inlineOutput =
    outputs === 'none'
      ? undefined
      : (node: unknown) => refs.inline(node, file, [], false, outputs === 'shared');
  const params = mergeParameters(inline(item.parameters), inline(op.parameters));
  const read =
    spec.major === 2
      ? readSwagger(spec.doc, op, params, inline, inlineOutput)
      : readOpenApi(op, params, inline, inlineOutput);
  const security = Array.isArray(op.security)
    ? op.security
    : Array.isArray(spec.doc.security)
      ? spec.doc.security
      : [];
  return {
    ...named,
    ...text('summary', op.summary),
    ...text('description', op.description),
    deprecated: op.deprecated === true,
    ...read,
    security: security.filter(isObj),
    ownServers: Array.isArray(op.servers) || Array.isArray(item.servers),
  };
}

type Read = Pick<Operation, 'parameters' | 'body' | 'unsupported' | 'output'>;

/** Path-level parameters, overridden by the operation's own of the same name and place. */
function mergeParameters(shared: unknown, own: unknown): Obj[] {
  const byKey = new Map<string, Obj>();
  for (const p of [...(Array.isArray(shared) ? shared : []), ...(Array.isArray(own) ? own : [])]) {
    if (isObj(p) && typeof p.name === 'string') byKey.set(`${p.in}:${p.name}`, p);
  }
  return [...byKey.values()];
}

type Inline = (n: unknown) => unknown;

function readOpenApi(op: Obj, params: Obj[], inline: Inline, inlineOutput: Inline | undefined): Read {
  const parameters = params.flatMap((p) => {
    const schema = isObj(p.schema) ? p.schema : firstContentSchema(p.content);
    const style = p.style ?? (p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple');
    const explode = p.explode ?? style === 'form';
    const joinWith =
      style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : explode ? undefined : ',';
    return parameter(p, schema, joinWith);
  });
  const requestBody = inline(op.requestBody);
  const body = isObj(requestBody) ? requestBody : undefined;
  const chosen = body && isObj(body.content) ? chooseMedia(Object.keys(body.content)) : undefined;
  const read: Read = { parameters };
  if (body && isObj(body.content) && Object.keys(body.content).length > 0) {
    if (!chosen)
      return { ...read, unsupported: `${Object.keys(body.content).join(', ')} bodies cannot be sent` };
    const media = (body.content as Obj)[chosen.type];
    Object.assign(read, {
      body: {
        encoding: chosen.encoding,
        ...(chosen.mediaType && { mediaType: chosen.mediaType }),
        schema: toJsonSchema(isObj(media) ? media.schema : undefined),
        required: body.required === true,
        ...text('description', body.description),
      },
    });
  }
  if (!inlineOutput) return read;
  const output = successSchema(op.responses, inlineOutput, (response) => {
    if (!isObj(response.content)) return undefined;
    const json = Object.keys(response.content).find((m) => chooseMedia([m])?.encoding === 'json');
    const media = json === undefined ? undefined : (response.content as Obj)[json];
    return isObj(media) && isObj(media.schema) ? media.schema : undefined;
  });
  return { ...read, ...(output && { output }) };
}

function readSwagger(
  doc: Obj,
  op: Obj,
  params: Obj[],
  _inline: Inline,
  inlineOutput: Inline | undefined,
): Read {
  const consumes = (
    Array.isArray(op.consumes) ? op.consumes : Array.isArray(doc.consumes) ? doc.consumes : []
  ).map(String);
  const produces = (
    Array.isArray(op.produces) ? op.produces : Array.isArray(doc.produces) ? doc.produces : []
  ).map(String);
  const parameters: Parameter[] = [];
  const formFields = params.filter((p) => p.in === 'formData');
  let body: Body | undefined;
  let unsupported: string | undefined;
  for (const p of params) {
    if (p.in === 'body') {
      const media = chooseMedia(consumes.length ? consumes : ['application/json']);
      if (!media) unsupported = `${consumes.join(', ')} bodies cannot be sent`;
      else
        body = {
          encoding: media.encoding,
          ...(media.mediaType && { mediaType: media.mediaType }),
          schema: toJsonSchema(p.schema),
          required: p.required === true,
          ...text('description', p.description),
        };
    } else if (p.in !== 'formData') {
      const joinWith = { csv: ',', ssv: ' ', tsv: '\t', pipes: '|' }[String(p.collectionFormat ?? 'csv')];
      parameters.push(...parameter(p, swaggerSchema(p), p.type === 'array' ? joinWith : undefined));
    }
  }
  if (formFields.length > 0) {
    if (consumes.includes('multipart/form-data') && !consumes.includes('application/x-www-form-urlencoded')) {
      unsupported = 'multipart/form-data bodies cannot be sent';
    } else if (formFields.some((p) => p.type === 'file')) {
      unsupported = 'file uploads cannot be sent';
    } else {
      const properties = Object.fromEntries(
        formFields.map((p) => [
          String(p.name),
          { ...swaggerSchema(p), ...text('description', p.description) },
        ]),
      );
      const required = formFields.filter((p) => p.required === true).map((p) => String(p.name));
      body = {
        encoding: 'form',
        schema: toJsonSchema({ type: 'object', properties, required }),
        required: required.length > 0,
      };
    }
  }
  const jsonOut = produces.length === 0 || produces.some((m) => chooseMedia([m])?.encoding === 'json');
  const output =
    jsonOut && inlineOutput
      ? successSchema(op.responses, inlineOutput, (r) => (isObj(r.schema) ? r.schema : undefined))
      : undefined;
  return {
    parameters,
    ...(body && { body }),
    ...(unsupported && { unsupported }),
    ...(output && { output }),
  };
}

/** A Swagger 2.0 non-body parameter carries its schema keywords on itself. */
function swaggerSchema(p: Obj): Obj {
  const {
    name: _n,
    in: _i,
    description: _d,
    required: _r,
    collectionFormat: _c,
    allowEmptyValue: _a,
    ...schema
  } = p;
  return schema;
}

function parameter(p: Obj, schema: unknown, joinWith: string | undefined): Parameter[] {
  const place = p.in;
  if (place !== 'path' && place !== 'query' && place !== 'header' && place !== 'cookie') return [];
  const converted = toJsonSchema(schema);
  const isArray =
    converted.type === 'array' || (Array.isArray(converted.type) && converted.type.includes('array'));
  return [
    {
      name: String(p.name),
      in: place,
      required: place === 'path' || p.required === true,
      ...text('description', p.description),
      ...(p.deprecated === true && { deprecated: true }),
      schema: converted,
      ...(isArray && joinWith !== undefined && { joinWith }),
    },
  ];
}

function firstContentSchema(content: unknown): unknown {
  if (!isObj(content)) return undefined;
  const first = Object.values(content)[0];
  return isObj(first) ? first.schema : undefined;
}

/**
 * The media type the http tool sends best: JSON, then a form, then text/plain, then a body sent as
 * one string with its own Content-Type (other text/*, XML, application/octet-stream: the bytes of
 * the string, UTF-8). Multipart is none of these: an http tool cannot send it.
 */
function chooseMedia(
  types: readonly string[],
): { type: string; encoding: Body['encoding']; mediaType?: string } | undefined {
  const bare = (t: string) => t.split(';')[0]!.trim().toLowerCase();
  const json = types.find((t) => /^application\/(.+\+)?json$/.test(bare(t)) || bare(t) === '*/*');
  if (json !== undefined) return { type: json, encoding: 'json' };
  const form = types.find((t) => bare(t) === 'application/x-www-form-urlencoded');
  if (form !== undefined) return { type: form, encoding: 'form' };
  const plain = types.find((t) => bare(t) === 'text/plain');
  if (plain !== undefined) return { type: plain, encoding: 'text' };
  const raw = types.find((t) =>
    /^(text\/[\w.+-]+|application\/([\w.-]+\+)?xml|application\/octet-stream)$/.test(bare(t)),
  );
  return raw === undefined ? undefined : { type: raw, encoding: 'text', mediaType: bare(raw) };
}

/** The first success response (200 before 201 before 2XX) whose `pick` finds a schema. */
function successSchema(
  responses: unknown,
  inline: (n: unknown) => unknown,
  pick: (response: Obj) => unknown,
): Obj | undefined {
  if (!isObj(responses)) return undefined;
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort((a, b) => a.toUpperCase().localeCompare(b.toUpperCase()));
  for (const code of codes) {
    const response = inline(responses[code]);
    const schema = isObj(response) ? pick(response) : undefined;
    if (schema !== undefined) return toJsonSchema(schema);
  }
  return undefined;
}

const text = <K extends string>(key: K, value: unknown): { [P in K]?: string } =>
  typeof value === 'string' && value.trim() !== '' ? ({ [key]: value.trim() } as { [P in K]: string }) : {};
