/**
 * Results as an older negotiated version can take them. The core builds every result in the newest
 * shape; this is the one place that removes what a client of an earlier revision does not know, so
 * a client that validates strictly against its own schema never refuses a whole result over one
 * field or one content block:
 *
 * - before 2025-06-18: no `title` (tools, resources, templates, prompts, their arguments,
 *   serverInfo), no `outputSchema` or `structuredContent` (the text block carries the JSON, see
 *   tools.ts), and no `resource_link` content: a link becomes a text line naming it;
 * - before 2025-03-26: no tool `annotations`, and no `audio` content: it becomes a text note.
 *
 * 2025-06-18 and later take every result as built.
 *
 * The same holds for what the server sends on its own (downgradeOutgoing): the step engine
 * (src/steps/) builds every `elicitation/create` form in the 2026-07-28 shape, and progress carries
 * a `message`; a legacy session gets them as its version defines them (docs/clients.md):
 *
 * - `notifications/progress`: no `message` before 2025-03-26;
 * - `elicitation/create` for 2025-06-18 (elicitation's first version): no `default` but on boolean
 *   fields, a titled single-select (`oneOf`) becomes `enum` + `enumNames`, a multi-select (`type:
 *   "array"`, SEP-1330) becomes a single-select of the same choices (the step engine reads a lone
 *   string answer as a one-item list), and no `mode`;
 * - `elicitation/create` before 2026-07-28: NumberSchema's `minimum` and `maximum` are integers, so
 *   a fractional bound is left out (the server still checks answers against it). The 2025-11-25
 *   schema types `default` as an integer too, but SEP-1034 and the official conformance scenario
 *   elicitation-sep1034-defaults (2025-11-25) send `default: 95.5`: a fractional default is kept
 *   for 2025-11-25, the one place this file follows the conformance suite over the vendored schema.
 */
import type { ContentBlock } from '../catalog/types.js';
import { isObject } from './jsonrpc.js';

type Wire = Record<string, unknown>;

const hasTitles = (version: string): boolean => version >= '2025-06-18';
const hasAudio = (version: string): boolean => version >= '2025-03-26';
const hasProgressMessage = (version: string): boolean => version >= '2025-03-26';
const hasFormDefaults = (version: string): boolean => version >= '2025-11-25';
const hasFractionalBounds = (version: string): boolean => version >= '2026-07-28';

/**
 * The params of a server→client request or notification (`method`) for a session of `version`
 * (a legacy version; undefined: as built).
 */
export function downgradeOutgoing(
  method: string,
  params: Readonly<Record<string, unknown>>,
  version: string | undefined,
): Record<string, unknown> {
  if (version === undefined) return { ...params };
  if (method === 'notifications/progress' && !hasProgressMessage(version))
    return withoutKeys(params, ['message']);
  if (method === 'elicitation/create') return downgradeForm(params, version);
  return { ...params };
}

function downgradeForm(params: Readonly<Record<string, unknown>>, version: string): Wire {
  const out = hasFormDefaults(version) ? { ...params } : withoutKeys(params, ['mode']);
  const schema = params.requestedSchema;
  if (hasFractionalBounds(version) || !isObject(schema) || !isObject(schema.properties)) return out;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, field]) => [
      name,
      isObject(field) ? downgradeField(field, version) : field,
    ]),
  );
  return { ...out, requestedSchema: { ...schema, properties } };
}

function downgradeField(field: Wire, version: string): Wire {
  let out: Wire = { ...field };
  if (out.type === 'number' || out.type === 'integer') {
    for (const bound of ['minimum', 'maximum'])
      if (typeof out[bound] === 'number' && !Number.isInteger(out[bound])) delete out[bound];
  }
  if (hasFormDefaults(version)) return out;
  if (out.type !== 'boolean') delete out.default;
  if (out.type === 'array') {
    const items = isObject(out.items) ? out.items : {};
    const { items: _items, minItems: _min, maxItems: _max, ...rest } = out;
    out = { ...rest, type: 'string', ...choices(items.enum, items.anyOf) };
  } else if (out.type === 'string' && Array.isArray(out.oneOf)) {
    const { oneOf, ...rest } = out;
    out = { ...rest, ...choices(undefined, oneOf) };
  }
  return out;
}

/** `enum` (+ `enumNames` when the choices are titled), the only choice shape of 2025-06-18. */
function choices(values: unknown, titled: unknown): Wire {
  if (Array.isArray(values)) return { enum: values };
  const options = Array.isArray(titled) ? titled.filter(isObject) : [];
  return {
    enum: options.map((o) => o.const),
    enumNames: options.map((o) => (typeof o.title === 'string' ? o.title : String(o.const))),
  };
}

/** The result of `method` for a session of `version` (a legacy version; undefined: as built). */
export function downgradeResult(method: string, result: object, version: string | undefined): object {
  if (version === undefined || hasTitles(version)) return result;
  const r = result as Wire;
  switch (method) {
    case 'initialize':
      return { ...r, serverInfo: withoutKeys(r.serverInfo, ['title']) };
    case 'tools/list':
      return { ...r, tools: mapList(r.tools, (tool) => downgradeTool(tool, version)) };
    case 'resources/list':
      return { ...r, resources: mapList(r.resources, (x) => withoutKeys(x, ['title'])) };
    case 'resources/templates/list':
      return { ...r, resourceTemplates: mapList(r.resourceTemplates, (x) => withoutKeys(x, ['title'])) };
    case 'prompts/list':
      return { ...r, prompts: mapList(r.prompts, downgradePrompt) };
    case 'tools/call': {
      const { structuredContent: _dropped, ...rest } = r;
      return { ...rest, content: mapList(r.content, (block) => downgradeBlock(block, version)) };
    }
    case 'prompts/get':
      return {
        ...r,
        messages: mapList(r.messages, (m) => ({ ...m, content: downgradeBlock(m.content, version) })),
      };
    default:
      return result;
  }
}

function downgradeTool(tool: Wire, version: string): Wire {
  return withoutKeys(
    tool,
    hasAudio(version) ? ['title', 'outputSchema'] : ['title', 'outputSchema', 'annotations'],
  );
}

function downgradePrompt(prompt: Wire): Wire {
  const bare = withoutKeys(prompt, ['title']);
  return Array.isArray(bare.arguments)
    ? { ...bare, arguments: mapList(bare.arguments, (a) => withoutKeys(a, ['title'])) }
    : bare;
}

/** A content block the version lacks, as the text line that says what it was. */
function downgradeBlock(block: unknown, version: string): unknown {
  if (!isObject(block)) return block;
  const b = block as ContentBlock;
  if (b.type === 'resource_link') {
    const about = [b.mimeType, b.description].filter((s) => s !== undefined).join(', ');
    return { type: 'text', text: `Resource ${b.name}: ${b.uri}${about === '' ? '' : ` (${about})`}` };
  }
  if (b.type === 'audio' && !hasAudio(version)) {
    const bytes =
      Math.floor((b.data.length * 3) / 4) - (b.data.endsWith('==') ? 2 : b.data.endsWith('=') ? 1 : 0);
    return {
      type: 'text',
      text: `[audio (${b.mimeType}, ${bytes} bytes) left out: this protocol version has no audio content]`,
    };
  }
  return block;
}

function mapList(list: unknown, each: (item: Wire) => unknown): unknown {
  return Array.isArray(list) ? list.map((item) => (isObject(item) ? each(item) : item)) : list;
}

function withoutKeys(value: unknown, keys: readonly string[]): Wire {
  const out: Wire = { ...(value as Wire) };
  for (const key of keys) delete out[key];
  return out;
}

/**
 * An error reply that cannot name its request. JSON-RPC 2.0 asks for `"id": null`, and the
 * 2024-11-05 … 2025-06-18 schemas require an id (they refuse null too, so null, the JSON-RPC rule,
 * is what those sessions get). 2025-11-25 and 2026-07-28 make the id optional and refuse null, so
 * their replies leave it out, as does a connection that has negotiated nothing yet (a bad first
 * line on stdio): the official SDK clients accept a missing id and refuse null. docs/clients.md.
 */
export function unnamedErrorReply(reply: object, version: string | undefined): object {
  if (version !== undefined && version < '2025-11-25') return reply;
  const { id: _unnamed, ...rest } = reply as Wire;
  return rest;
}
