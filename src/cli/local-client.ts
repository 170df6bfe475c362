/**
 * An in-process MCP client for the commands that run one thing without a real client (`list`,
 * `call`, `read`, `prompt`): it speaks to the same protocol core a client would, so what they print
 * is what a client would see. Progress and log notifications go to the given handler; requests the
 * server sends (a confirm step's elicitation, with `call --yes`) to the given answerer.
 */
import { loadCatalog } from '../catalog/load.js';
import { catalogView } from '../catalog/toolsets.js';
import { type Catalog, CatalogRef } from '../catalog/types.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { createProtocol } from '../protocol/server.js';
import { toolsetFault } from './toolset-arg.js';

type Json = Record<string, unknown>;

export class RequestFailed extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface LocalClient {
  readonly catalog: Catalog;
  readonly log: StderrLogger;
  request(method: string, params?: Json): Promise<Json>;
  close(): Promise<void>;
}

/**
 * Compiles the manifest (printing every error and exiting 1 when it has any) and initializes a
 * 2025-era session with logging at `debug`, so the tool's logs can be shown.
 */
export interface LocalClientOptions {
  /** The client capabilities declared at initialize (default: none, so steps that ask are refused). */
  readonly capabilities?: Json;
  /** Answers a request from the server (method and params); what it returns is the result. */
  readonly answer?: (method: string, params: Json) => Json | undefined;
  /** `--toolset`: the session is served these toolsets' view, as a client of their endpoint is. */
  readonly toolsets?: readonly string[];
}

export async function openLocalClient(
  file: string,
  onNotification: (message: Json) => void,
  options: LocalClientOptions = {},
): Promise<LocalClient> {
  const log = new StderrLogger('warn');
  let catalog: Catalog;
  try {
    ({ catalog } = await loadCatalog(file, builtinKinds(), log));
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    process.stderr.write(`${log.redact(err.message)}\n`);
    process.exit(1);
  }
  const fault = toolsetFault(catalog, options.toolsets);
  if (fault !== undefined) {
    process.stderr.write(`mcp-run: ${fault}\n`);
    await catalog.dispose();
    process.exit(2);
  }
  const toolsets = options.toolsets;
  const pending = new Map<number, (message: Json) => void>();
  const connection = createProtocol(new CatalogRef(catalog), { log, listChanged: false }).connect(
    (message) => {
      const m = message as Json;
      const waiter = typeof m.id === 'number' ? pending.get(m.id) : undefined;
      if (waiter && !('method' in m)) waiter(m);
      else if ('method' in m && m.id !== undefined) void answerRequest(m);
      else onNotification(m);
    },
    toolsets && { toolsets },
  );
  const answerRequest = async (m: Json): Promise<void> => {
    const result = options.answer?.(String(m.method), (m.params ?? {}) as Json);
    await connection.receive(
      result === undefined
        ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `mcp-run cannot answer ${m.method}` } }
        : { jsonrpc: '2.0', id: m.id, result },
    );
  };
  let nextId = 0;
  const request = async (method: string, params: Json = {}): Promise<Json> => {
    const id = ++nextId;
    const response = new Promise<Json>((resolve) => pending.set(id, resolve));
    await connection.receive({ jsonrpc: '2.0', id, method, params });
    const message = await response;
    pending.delete(id);
    const error = message.error as { code: number; message: string } | undefined;
    if (error) throw new RequestFailed(error.code, error.message);
    return message.result as Json;
  };
  await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: options.capabilities ?? {},
    clientInfo: { name: 'mcp-run-cli', version: '1' },
  });
  await connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await request('logging/setLevel', { level: 'debug' });
  return {
    // What the session serves (the default toolset's view without --toolset), for the commands'
    // own checks: `call` of a tool outside the toolset is unknown, as it is to the session.
    catalog: catalogView(catalog, toolsets),
    log,
    request,
    close: async () => {
      connection.close();
      await catalog.dispose();
    },
  };
}
