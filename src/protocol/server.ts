/**
 * The protocol core's entry point: one instance per served catalog reference, shared by every
 * transport and connection. It holds no per-request state; connections hold the legacy sessions
 * and the hub holds the listeners.
 */
import type { CatalogRef, LogLevel } from '../catalog/types.js';
import { TaskEngine } from '../tasks/engine.js';
import { MemoryTaskStore } from '../tasks/memory-store.js';
import type { Connection, ConnectOptions, Protocol, ProtocolOptions } from './api.js';
import { ProtocolConnection } from './connection.js';
import { ResourceFollows } from './follows.js';
import { type CatalogChange, type ListCategory, NotificationHub } from './hub.js';
import { STATE_KEY_ENV, STATE_TTL_MS, StateSigner, stateKey } from './request-state.js';
import { buildCapabilities } from './results.js';
import type { ServerState } from './state.js';

export type {
  Access,
  Connection,
  ConnectOptions,
  Era,
  ListCategory,
  ListKind,
  OutcomeKind,
  Protocol,
  ProtocolOptions,
  ReceiveOutcome,
  RequestRoute,
} from './api.js';
export { ErrorCode, HttpStatus } from './jsonrpc.js';
export { LATEST_LEGACY_VERSION, LEGACY_VERSIONS, MODERN_VERSIONS, SUPPORTED_VERSIONS } from './versions.js';

/** A watched manifest can change at any moment, so clients should not trust a list for long. */
const WATCHED_TTL_MS = 60_000;
const STATIC_TTL_MS = 3_600_000;

export function createProtocol(ref: CatalogRef, options: ProtocolOptions): Protocol {
  const ttlMs = options.ttlMs ?? (options.listChanged ? WATCHED_TTL_MS : STATIC_TTL_MS);
  if (!Number.isInteger(ttlMs) || ttlMs < 0)
    throw new RangeError(`ttlMs must be an integer >= 0, got ${ttlMs}`);
  const resourceUpdates = options.resourceUpdates ?? options.listChanged;
  const hub = new NotificationHub(options.listChanged, resourceUpdates);
  const secret = options.stateKey ?? process.env[STATE_KEY_ENV];
  // A random key is made on first use: most sessions never seal a requestState.
  const signer = new StateSigner(
    secret ? stateKey(secret, options.log) : () => stateKey(undefined, options.log),
    STATE_TTL_MS,
    Date.now,
    options.usedStates,
  );
  const follows = new ResourceFollows(ref, (uri) => hub.notifyResourceUpdated(uri), options.log);
  ref.onSwap(() => follows.rebind());
  const server: ServerState = {
    ref,
    log: options.log,
    listChanged: options.listChanged,
    ttlMs,
    capabilities: buildCapabilities(options.listChanged, resourceUpdates),
    hub,
    follows,
    signer,
    tasks: new TaskEngine(
      options.taskStore ?? new MemoryTaskStore(),
      () => ref.current.server.tasks,
      options.taskEngine,
    ),
    ...(options.audit !== undefined && { audit: options.audit }),
  };
  return {
    connect: (send: (message: object) => void, connectOptions?: ConnectOptions): Connection =>
      new ProtocolConnection(server, send, connectOptions),
    notifyListChanged: (categories: ReadonlySet<ListCategory>, change?: CatalogChange) =>
      hub.notifyListChanged(categories, change),
    notifyResourceUpdated: (uri: string) => hub.notifyResourceUpdated(uri),
    notifyLog: (level: LogLevel, data: unknown) => hub.notifyLog(level, data),
    close: () => {
      hub.endListens();
      follows.releaseAll();
      void server.tasks.close();
    },
    abandon: (error) => hub.abandonAll(error),
  };
}
