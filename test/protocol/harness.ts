/**
 * Test harness: a protocol over the fixture catalog, and clients that record every message the
 * server sends them. Requests resolve with their response once `receive` has resolved.
 */

import { contractHash } from '../../src/catalog/contract-hash.js';
import type { Logger } from '../../src/kinds/contract/kinds.js';
import type { Connection, Protocol, ReceiveOutcome, RequestRoute } from '../../src/protocol/server.js';
import { createProtocol } from '../../src/protocol/server.js';
import { type Fixture, makeFixture } from './catalog-fixture.js';

// Wire messages are free-form JSON; tests read them field by field.
export type Json = any;

export const MODERN = '2026-07-28';
export const PV = 'io.modelcontextprotocol/protocolVersion';
export const CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const SUB_ID = 'io.modelcontextprotocol/subscriptionId';
export const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const CONTRACT = 'mcp-run/contract';

/** What every 2026 result's `_meta` says of the fixture server: its serverInfo and contract hash. */
export const FIXTURE_META = {
  [SERVER_INFO]: { name: 'fixture', version: '1.2.3', title: 'Fixture Server' },
  [CONTRACT]: contractHash(makeFixture().catalog),
};

export interface CapturedLogger extends Logger {
  readonly lines: string[];
}

export function captureLogger(): CapturedLogger {
  const lines: string[] = [];
  const push = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

/** Params carrying the 2026 envelope (plus any extra `_meta` keys). */
export function modern(params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Json {
  return { ...params, _meta: { [PV]: MODERN, [CAPS]: {}, ...meta } };
}

export class TestClient {
  readonly sent: Json[] = [];
  readonly connection: Connection;
  private nextId = 1;

  constructor(protocol: Protocol) {
    this.connection = protocol.connect((message) => this.sent.push(structuredClone(message)));
  }

  /** Sends a request and returns its response (undefined when none was sent). */
  async request(method: string, params?: unknown, id: string | number = this.nextId++): Promise<Json> {
    await this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return this.responseTo(id);
  }

  async notify(method: string, params?: unknown): Promise<ReceiveOutcome> {
    return this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** Passes the message through JSON text, as a transport would. */
  send(message: unknown, route?: RequestRoute): Promise<ReceiveOutcome> {
    return this.connection.receive(JSON.stringify(message), route);
  }

  responseTo(id: unknown): Json {
    return this.sent.find((m) => m.method === undefined && m.id === id);
  }

  notifications(method?: string): Json[] {
    return this.sent.filter((m) => m.method !== undefined && (method === undefined || m.method === method));
  }

  /** Runs the legacy handshake; returns the initialize result. */
  async initialize(version = '2025-11-25', ready = true): Promise<Json> {
    const response = await this.request('initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    });
    if (ready) await this.notify('notifications/initialized');
    return response.result;
  }
}

export interface Setup {
  readonly protocol: Protocol;
  readonly fixture: Fixture;
  readonly log: CapturedLogger;
  client(): TestClient;
}

export function setup(
  options: { listChanged?: boolean; resourceUpdates?: boolean; ttlMs?: number } = {},
): Setup {
  const fixture = makeFixture();
  const log = captureLogger();
  const protocol = createProtocol(fixture.ref, {
    log,
    listChanged: options.listChanged ?? true,
    ...(options.resourceUpdates === undefined ? {} : { resourceUpdates: options.resourceUpdates }),
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
  });
  return { protocol, fixture, log, client: () => new TestClient(protocol) };
}

/** Lets pending timers and microtasks run. */
export const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A route that records what an HTTP transport would receive for one request. */
export function recordingRoute(
  extra: { signal?: AbortSignal; protocolVersion?: string } = {},
): RequestRoute & {
  readonly notes: Json[];
  readonly responses: { message: Json; status: number }[];
} {
  const notes: Json[] = [];
  const responses: { message: Json; status: number }[] = [];
  return {
    ...extra,
    notes,
    responses,
    notify: (message) => notes.push(structuredClone(message)),
    respond: (message, status) => responses.push({ message: structuredClone(message), status }),
  };
}
