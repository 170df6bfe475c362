/**
 * The in-process client `mcp-run test` sends its cases through: a session with the real protocol
 * core (as `mcp-run call` has), and how each case's action becomes a request and a checkable result.
 */
import { type CallerIdentity, type Catalog, CatalogRef } from '../catalog/types.js';
import { StderrLogger } from '../log.js';
import { createProtocol } from '../protocol/server.js';
import type { TestCase } from './cases.js';
import type { Observed } from './expect.js';

// biome-ignore lint/suspicious/noExplicitAny: protocol results are free-form JSON
type Json = Record<string, any>;

/** The protocol answered with a JSON-RPC error (an unknown tool, say). */
export class RequestFailed extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data: unknown,
  ) {
    super(message);
  }
}

/** A case's caller: the claims as given; `iss` and `sub` from them when they are strings. */
function testIdentity(claims: Readonly<Record<string, unknown>>): CallerIdentity {
  return {
    issuer: typeof claims.iss === 'string' ? claims.iss : 'mcp-run-test',
    subject: typeof claims.sub === 'string' ? claims.sub : undefined,
    claims,
    expiresAt: undefined,
    // No real token exists: a token exchange in a test gets this placeholder (and its tape answers).
    accessToken: () => 'mcp-run-test-access-token',
  };
}

export interface Client {
  /** With `claims`, the request carries a verified identity with those claims (TestCase.claims). */
  request(method: string, params?: Json, claims?: Readonly<Record<string, unknown>>): Promise<Json>;
  close(): void;
}

export async function perform(client: Client, c: TestCase): Promise<Observed> {
  const a = c.action;
  if (a.type === 'call') {
    const result = await client.request('tools/call', { name: a.name, arguments: a.args }, c.claims);
    // The text a person reads: the JSON copy of structuredContent kept for older clients is left out.
    const copy =
      result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
    const blocks = ((result.content ?? []) as Json[]).filter((c) => !(c.type === 'text' && c.text === copy));
    return { text: blocks.map(contentText).join('\n'), result, isTool: true };
  }
  if (a.type === 'read') {
    const result = await client.request('resources/read', { uri: a.uri }, c.claims);
    return { text: (result.contents as Json[]).map(contentText).join('\n'), result, isTool: false };
  }
  const result = await client.request('prompts/get', { name: a.name, arguments: a.args }, c.claims);
  const text = (result.messages as Json[]).map((m) => `[${m.role}]\n${contentText(m.content)}`).join('\n\n');
  return { text, result, isTool: false };
}

function contentText(c: Json): string {
  if (typeof c.text === 'string') return c.text;
  if (c.type === 'resource' && typeof c.resource?.text === 'string') return c.resource.text;
  return `[${c.type ?? 'content'}${c.mimeType ? ` ${c.mimeType}` : ''}]`;
}

/** A 2025-era session with the protocol core, in-process. */
export async function connect(catalog: Catalog, toolsets: readonly string[] | undefined): Promise<Client> {
  const log = new StderrLogger('error');
  const pending = new Map<number, (message: Json) => void>();
  const connection = createProtocol(new CatalogRef(catalog), { log, listChanged: false }).connect(
    (message) => {
      const m = message as Json;
      const waiter = typeof m.id === 'number' ? pending.get(m.id) : undefined;
      if (waiter && !('method' in m)) waiter(m);
    },
    toolsets && { toolsets },
  );
  let nextId = 0;
  const request = async (
    method: string,
    params: Json = {},
    claims?: Readonly<Record<string, unknown>>,
  ): Promise<Json> => {
    const id = ++nextId;
    const response = new Promise<Json>((resolve) => pending.set(id, resolve));
    const sent = { jsonrpc: '2.0', id, method, params };
    // An identity travels with its request (as the HTTP transport passes a verified token's).
    if (claims === undefined) await connection.receive(sent);
    else
      await connection.receive(sent, {
        identity: testIdentity(claims),
        notify: () => {},
        respond: (answer) => pending.get(id)?.(answer as Json),
      });
    const message = await response;
    pending.delete(id);
    const error = message.error as { code: number; message: string; data?: unknown } | undefined;
    if (error) throw new RequestFailed(`${error.message} (${error.code})`, error.code, error.data);
    return message.result as Json;
  };
  await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcp-run-test', version: '1' },
  });
  await connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { request, close: () => connection.close() };
}
