/**
 * What an upstream answers, turned into the contract's types: every field checked for its shape
 * before use, unknown fields dropped, every text passed through the source's redaction. The
 * upstream's answer is data: nothing here interprets it beyond its type.
 */
import { isObject } from '../../util/is-object.js';
import type { ContentBlock, PromptResult, ResourceContents, ToolResult } from '../contract/types.js';
import { viewMetaOf } from './views.js';

/** A result's `_meta` larger than this (as JSON) is not relayed: the view gets the rest of the result. */
export const MAX_RESULT_META_BYTES = 64 * 1024;

/** A log message's data with the source's credentials replaced, whatever its shape. */
export function redactData(data: unknown, redact: (text: string) => string): unknown {
  if (typeof data === 'string') return redact(data);
  try {
    return JSON.parse(redact(JSON.stringify(data) ?? 'null'));
  } catch {
    return null;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One content block as the contract knows it; an unknown type becomes a text note. */
function contentBlock(block: unknown, redact: (text: string) => string): ContentBlock[] {
  if (!isObject(block)) return [];
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: redact(str(block.text) ?? '') }];
    case 'image':
    case 'audio': {
      const data = str(block.data);
      const mimeType = str(block.mimeType);
      return data === undefined || mimeType === undefined ? [] : [{ type: block.type, data, mimeType }];
    }
    case 'resource': {
      const [resource] = resourceContents(block.resource, redact);
      return resource === undefined ? [] : [{ type: 'resource', resource }];
    }
    case 'resource_link': {
      const uri = str(block.uri);
      const name = str(block.name);
      if (uri === undefined || name === undefined) return [];
      const mimeType = str(block.mimeType);
      const description = str(block.description);
      return [
        {
          type: 'resource_link',
          uri,
          name,
          ...(mimeType !== undefined && { mimeType }),
          ...(description !== undefined && { description }),
        },
      ];
    }
    default:
      return [
        {
          type: 'text',
          text: `[a ${JSON.stringify(String(block.type)).slice(0, 60)} block mcp-run does not relay]`,
        },
      ];
  }
}

export function resourceContents(value: unknown, redact: (text: string) => string): ResourceContents[] {
  if (!isObject(value) || typeof value.uri !== 'string') return [];
  const mimeType = str(value.mimeType);
  // Of a content's `_meta`, only an MCP Apps view's `ui` settings, checked (views.ts).
  const meta = viewMetaOf(value._meta);
  const base = {
    uri: value.uri,
    ...(mimeType !== undefined && { mimeType }),
    ...(meta !== undefined && { _meta: meta }),
  };
  if (typeof value.text === 'string') return [{ ...base, text: redact(value.text) }];
  if (typeof value.blob === 'string') return [{ ...base, blob: value.blob }];
  return [];
}

export function toolResult(result: unknown, redact: (text: string) => string): ToolResult {
  const r = isObject(result) ? result : {};
  const content = Array.isArray(r.content) ? r.content.flatMap((b) => contentBlock(b, redact)) : [];
  const meta = resultMeta(r._meta, redact);
  return {
    content,
    ...(r.structuredContent !== undefined && { structuredContent: r.structuredContent }),
    ...(r.isError === true && { isError: true }),
    ...(meta !== undefined && { _meta: meta }),
  };
}

/**
 * A tool result's `_meta`, which MCP Apps hands to the view (data the model does not read): relayed
 * redacted and bounded, without the keys the MCP specification reserves for the protocol (a prefix
 * with a `modelcontextprotocol` or `mcp` label: the upstream's own serverInfo, related task, …) and
 * mcp-run's own (`mcp-run/contract`), which would speak for mcp-run.
 */
function resultMeta(value: unknown, redact: (text: string) => string): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  const kept = Object.entries(value).filter(([key]) => !reservedKey(key));
  if (kept.length === 0) return undefined;
  const text = redact(JSON.stringify(Object.fromEntries(kept)));
  if (Buffer.byteLength(text) > MAX_RESULT_META_BYTES) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function reservedKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash).toLowerCase();
  return (
    prefix === 'mcp-run' ||
    prefix.split('.').some((label) => label === 'modelcontextprotocol' || label === 'mcp')
  );
}

export function promptResult(result: unknown, redact: (text: string) => string): PromptResult {
  const r = isObject(result) ? result : {};
  const messages = Array.isArray(r.messages) ? r.messages : [];
  const description = str(r.description);
  return {
    ...(description !== undefined && { description: redact(description) }),
    messages: messages.flatMap((m) => {
      if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) return [];
      const [content] = contentBlock(m.content, redact);
      return content === undefined ? [] : [{ role: m.role, content }];
    }),
  };
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const titled = (v: unknown): boolean =>
  Array.isArray(v) &&
  v.every((o) => isObject(o) && typeof o.const === 'string' && typeof o.title === 'string');
const FORMATS = new Set(['date', 'date-time', 'email', 'uri']);

/** Whether one field of a form is of the restricted shape the spec allows (PrimitiveSchemaDefinition). */
function formField(field: unknown): boolean {
  if (!isObject(field)) return false;
  const ok = (key: string, check: (v: unknown) => boolean) => field[key] === undefined || check(field[key]);
  const isString = (v: unknown) => typeof v === 'string';
  const isNumber = (v: unknown) => typeof v === 'number';
  const isInteger = (v: unknown) => Number.isInteger(v);
  if (!ok('title', isString) || !ok('description', isString)) return false;
  switch (field.type) {
    case 'string':
      return (
        ok('default', isString) &&
        ok('format', (v) => typeof v === 'string' && FORMATS.has(v)) &&
        ok('minLength', isInteger) &&
        ok('maxLength', isInteger) &&
        ok('enum', strings) &&
        ok('enumNames', strings) &&
        ok('oneOf', titled)
      );
    case 'number':
    case 'integer':
      return ok('default', isNumber) && ok('minimum', isNumber) && ok('maximum', isNumber);
    case 'boolean':
      return ok('default', (v) => typeof v === 'boolean');
    case 'array': {
      const items = field.items;
      return (
        isObject(items) &&
        ((items.type === 'string' && strings(items.enum)) || titled(items.anyOf)) &&
        ok('default', strings) &&
        ok('minItems', isInteger) &&
        ok('maxItems', isInteger)
      );
    }
    default:
      return false;
  }
}

const ROLES = new Set(['user', 'assistant']);
const CONTEXTS = new Set(['none', 'thisServer', 'allServers']);

/**
 * An upstream's question (elicitation, sampling, roots) as relayed to our client: its params
 * checked against the shape the spec gives the method (a form-mode elicitation of a flat form, a
 * sampling request with its messages and maxTokens, roots without params), only the spec's fields
 * kept, every text through the source's redaction. A sentence when the upstream's params are not
 * of that shape (it is answered -32602): what reaches our client is always a valid request, and an
 * upstream never speaks for mcp-run in a mode the client did not declare (url mode is not relayed).
 */
export function questionParams(
  method: string,
  params: unknown,
  redact: (text: string) => string,
): { readonly params: Readonly<Record<string, unknown>> } | { readonly refused: string } {
  const given = isObject(params) ? params : {};
  if (method === 'roots/list') return { params: {} };
  if (method === 'elicitation/create') {
    if (given.mode !== undefined && given.mode !== 'form')
      return { refused: 'mcp-run relays form-mode elicitation only (params.mode "form" or none)' };
    const form = given.requestedSchema;
    if (typeof given.message !== 'string')
      return { refused: 'elicitation/create needs params.message, a string' };
    if (
      !isObject(form) ||
      form.type !== 'object' ||
      !isObject(form.properties) ||
      !Object.values(form.properties).every(formField) ||
      (form.required !== undefined && !strings(form.required)) ||
      (form.$schema !== undefined && typeof form.$schema !== 'string')
    )
      return {
        refused:
          'elicitation/create needs params.requestedSchema, an object schema of flat string, number, boolean and enum fields',
      };
    const requestedSchema = {
      type: 'object',
      properties: form.properties,
      ...(form.required !== undefined && { required: form.required }),
    };
    return {
      params: redactData({ message: given.message, requestedSchema }, redact) as Record<string, unknown>,
    };
  }
  if (method === 'sampling/createMessage') {
    const { messages, maxTokens } = given;
    const message = (m: unknown) =>
      isObject(m) &&
      typeof m.role === 'string' &&
      ROLES.has(m.role) &&
      (isObject(m.content) || (Array.isArray(m.content) && m.content.every(isObject)));
    if (!Array.isArray(messages) || !messages.every(message) || !Number.isInteger(maxTokens))
      return {
        refused:
          'sampling/createMessage needs params.messages (each with a role and content) and params.maxTokens, an integer',
      };
    const kept: Record<string, unknown> = { messages, maxTokens };
    if (typeof given.systemPrompt === 'string') kept.systemPrompt = given.systemPrompt;
    if (typeof given.temperature === 'number') kept.temperature = given.temperature;
    if (strings(given.stopSequences)) kept.stopSequences = given.stopSequences;
    if (typeof given.includeContext === 'string' && CONTEXTS.has(given.includeContext))
      kept.includeContext = given.includeContext;
    if (isObject(given.modelPreferences)) kept.modelPreferences = given.modelPreferences;
    if (isObject(given.metadata)) kept.metadata = given.metadata;
    return { params: redactData(kept, redact) as Record<string, unknown> };
  }
  return { refused: `mcp-run does not relay ${method}` };
}
