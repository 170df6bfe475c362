/**
 * The 2026-07-28 routing headers (digest §6.3): over HTTP, `Mcp-Method` must equal the method,
 * `Mcp-Name` the name or URI the method's spec names (`routingName`), and `Mcp-Param-*` must mirror
 * the tool arguments whose inputSchema property carries `"x-mcp-header"` (SEP-2243), after
 * base64-sentinel decoding (integers compared as numbers). A fault is 400 + -32020; all of a
 * request's faults are named at once.
 *
 * The core runs these checks for a request it has already classified as modern, after the envelope
 * and method checks (the order the official SDK uses), so a broken envelope or an unknown method
 * gets that more basic error first. Only properties reachable through a plain chain of `properties`
 * count, as the spec defines them; declarations are read from each schema once (schemas
 * do not change; a reload brings new ones).
 */
import type { MethodSpec } from './context.js';
import { ErrorCode, HttpStatus, isObject, ProtocolError } from './jsonrpc.js';

/** A request's headers by lower-case name, as the transport received them. */
export type HeaderReader = (name: string) => string | undefined;

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * Every way the routing headers disagree with the body, each a 400 + -32020 fault; empty when they
 * agree. The caller names them all in one error (allFaults), with any envelope fault first.
 */
export function routingFaults(
  method: string,
  spec: MethodSpec,
  params: Record<string, unknown>,
  header: HeaderReader,
  toolSchema: (name: string) => unknown,
): ProtocolError[] {
  return routingTexts(method, spec, params, header, toolSchema).map(
    (text) => new ProtocolError(ErrorCode.HeaderMismatch, text, undefined, HttpStatus.BadRequest),
  );
}

function routingTexts(
  method: string,
  spec: MethodSpec,
  params: Record<string, unknown>,
  header: HeaderReader,
  toolSchema: (name: string) => unknown,
): string[] {
  const faults: string[] = [];
  if (header('mcp-protocol-version') === undefined)
    faults.push('missing MCP-Protocol-Version header (required on every 2026-07-28 request)');
  const methodFault = compare(header, 'Mcp-Method', method);
  if (methodFault !== undefined) faults.push(methodFault);
  const expected = spec.routingName === undefined ? undefined : params[spec.routingName];
  if (typeof expected !== 'string') return faults;
  const nameFault = compare(header, 'Mcp-Name', expected);
  if (nameFault !== undefined) faults.push(nameFault);
  // The Mcp-Param-* headers mirror the arguments of the tool the body names.
  if (spec.routesArguments)
    faults.push(...paramHeaderFaults(header, declarationsOf(toolSchema(expected)), params.arguments));
  return faults;
}

const NONE: readonly ParamDeclaration[] = [];
/** A tool's declarations, found once per inputSchema object (a reload brings new schemas). */
const declared = new WeakMap<object, readonly ParamDeclaration[]>();

function declarationsOf(schema: unknown): readonly ParamDeclaration[] {
  if (!isObject(schema)) return NONE;
  let found = declared.get(schema);
  if (found === undefined) {
    found = paramDeclarations(schema);
    declared.set(schema, found);
  }
  return found;
}

function compare(header: HeaderReader, name: string, expected: string): string | undefined {
  const raw = header(name.toLowerCase());
  if (raw === undefined)
    return `missing ${name} header (it must repeat ${JSON.stringify(expected)} from the body)`;
  const value = decodeHeaderValue(raw);
  if (value === undefined) return `${name} header has an invalid base64 value`;
  if (value !== expected)
    return `${name} header ${JSON.stringify(value)} does not match the body's ${JSON.stringify(expected)}`;
  return undefined;
}

const PREFIX = '=?base64?';
const SUFFIX = '?=';

/**
 * A `=?base64?…?=` sentinel carries UTF-8 bytes in base64; anything else is the value itself. Only
 * a value with both the prefix and the suffix is a sentinel (SEP-2243's test table): one that lacks
 * either, even if what follows looks like Base64 (`=?base64?SGVsbG8=`), is a literal and must equal
 * the argument as is. A sentinel whose payload is not canonical padded Base64 of UTF-8 is refused.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!raw.startsWith(PREFIX) || !raw.endsWith(SUFFIX) || raw.length < PREFIX.length + SUFFIX.length)
    return raw;
  const match = SENTINEL.exec(raw);
  if (match === null || match[1]!.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(match[1]!, 'base64');
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

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

/** Each declared argument present in `args` whose matching header is missing, broken or different. */
function paramHeaderFaults(
  header: HeaderReader,
  declarations: readonly ParamDeclaration[],
  args: unknown,
): string[] {
  const faults: string[] = [];
  for (const { path, header: name } of declarations) {
    const value = valueAt(args, path);
    if (value === undefined || value === null) continue;
    const headerName = `Mcp-Param-${name}`;
    const raw = header(headerName.toLowerCase());
    const decoded = raw === undefined ? undefined : decodeHeaderValue(raw);
    if (raw === undefined) faults.push(`missing ${headerName} header for argument "${path.join('.')}"`);
    else if (decoded === undefined) faults.push(`${headerName} header has an invalid base64 value`);
    else if (!agrees(decoded, value))
      faults.push(
        `${headerName} header ${JSON.stringify(decoded)} does not match argument "${path.join('.')}"`,
      );
  }
  return faults;
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
