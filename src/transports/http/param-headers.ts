/**
 * `Mcp-Param-*` headers (2026-07-28, SEP-2243): a tool argument whose inputSchema property carries
 * `"x-mcp-header": "Region"` is mirrored by the client into `Mcp-Param-Region`, so gateways can route
 * on it without parsing the body. The server must check that the header is there whenever the
 * argument is, and that both agree (after base64-sentinel decoding; integers compared as numbers).
 *
 * Only properties reachable through a plain chain of `properties` count, as the spec defines them;
 * declarations are read from the schema per call (schemas are small; a reload may change them).
 */
import type { IncomingMessage } from 'node:http';
import { isObject } from '../../protocol/jsonrpc.js';
import { decodeHeaderValue } from './modern.js';
import { header } from './wire.js';

export interface ParamDeclaration {
  readonly path: readonly string[];
  readonly header: string;
}

/** The `x-mcp-header` declarations of an inputSchema. */
export function paramDeclarations(schema: unknown, path: readonly string[] = []): ParamDeclaration[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const found: ParamDeclaration[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    const at = [...path, name];
    const declared = property['x-mcp-header'];
    if (typeof declared === 'string' && declared !== '') found.push({ path: at, header: declared });
    found.push(...paramDeclarations(property, at));
  }
  return found;
}

/** Undefined when every declared argument present in `args` has its matching header. */
export function paramHeaderFault(
  req: IncomingMessage,
  declarations: readonly ParamDeclaration[],
  args: unknown,
): string | undefined {
  for (const { path, header: name } of declarations) {
    const value = valueAt(args, path);
    if (value === undefined || value === null) continue;
    const headerName = `Mcp-Param-${name}`;
    const raw = header(req, headerName.toLowerCase());
    if (raw === undefined) return `missing ${headerName} header for argument "${path.join('.')}"`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `${headerName} header has an invalid base64 value`;
    if (!agrees(decoded, value))
      return `${headerName} header ${JSON.stringify(decoded)} does not match argument "${path.join('.')}"`;
  }
  return undefined;
}

function agrees(headerValue: string, value: unknown): boolean {
  if (typeof value === 'string') return headerValue === value;
  if (typeof value === 'boolean') return headerValue === String(value);
  if (typeof value === 'number') return headerValue.trim() !== '' && Number(headerValue) === value;
  return false;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}
