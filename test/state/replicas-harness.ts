/**
 * Real parts for the replica tests: mcp-run processes (the built CLI with `--state`), HAProxy in
 * front of them (round-robin, no stickiness, health checks on /healthz), and a redis-server of the
 * test's own on a free port when a test must stop Redis. Each test uses its own key prefix.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../helpers/demo.js';
import { modernRequest, parseSse } from '../transports/http-harness.js';

export const REDIS_URL = process.env.MCP_RUN_TEST_REDIS_URL;
export const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));
export const REDIS_SERVER = [
  '/usr/bin/redis-server',
  '/usr/sbin/redis-server',
  '/usr/local/bin/redis-server',
].find((p) => existsSync(p));

/** Why the replica tests cannot run here, or undefined. */
export function skipReason(needs: { haproxy?: boolean; redisServer?: boolean } = {}): string | undefined {
  if (REDIS_URL === undefined) return 'MCP_RUN_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)';
  if (needs.haproxy && HAPROXY === undefined) return 'HAProxy is not installed (apt-get install -y haproxy)';
  if (needs.redisServer && REDIS_SERVER === undefined) return 'redis-server is not installed';
  return undefined;
}

/** The shared Redis with a key prefix of this test's own. */
export function stateUrl(base = REDIS_URL as string): string {
  const url = new URL(base);
  url.searchParams.set('prefix', `test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  return url.toString();
}

/** A port the OS says is free now (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Replica {
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** The X-Mcp-Run-Replica id it answers with. */
  readonly id: string;
  stderr(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function startReplica(
  manifest: string,
  state: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      manifest,
      '--http',
      '--port',
      '0',
      '--log-format',
      'json',
      '--log-level',
      'debug',
      '--state',
      state,
      ...extra,
    ],
    {
      stdio: 'pipe',
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        MCP_RUN_STATE_KEY: 'replicas-test-key',
        ...env,
      },
    },
  );
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const m = /"msg":"listening on (http:\/\/[^"]+\/mcp)"/.exec(stderr);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`replica exited ${code}: ${stderr}`)));
  });
  const health = await fetch(new URL('/healthz', url));
  await health.text();
  const id = health.headers.get('x-mcp-run-replica') ?? (await replicaId(url));
  return {
    port: Number(new URL(url).port),
    url,
    child,
    id,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

/** The replica id a server answers with (a 2026 discover is the cheapest request that reaches /mcp). */
async function replicaId(url: string): Promise<string> {
  const res = await fetch(url, { method: 'DELETE' });
  await res.text();
  return res.headers.get('x-mcp-run-replica') ?? '';
}

export interface Balancer {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * HAProxy on a free port: round-robin over `replicas`, no stickiness, /healthz checks, redispatch.
 * `fall`: failed checks before a replica is taken out (1: at once; more rides out a slow check on a
 * loaded machine, and redispatch covers a dead replica meanwhile).
 */
export async function startHaproxy(replicas: readonly Replica[], { fall = 1 } = {}): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-haproxy-'));
  const port = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 256',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout tunnel 60s',
      '  retries 3',
      '  option redispatch 1',
      'frontend mcp',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      '  option httpchk GET /healthz',
      ...replicas.map((r, i) => `  server r${i} 127.0.0.1:${r.port} check inter 300ms fall ${fall} rise 1`),
      '',
    ].join('\n'),
  );
  const child = spawn(HAPROXY as string, ['-f', cfg, '-db'], { stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  const url = `http://127.0.0.1:${port}/mcp`;
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${output}`);
    const ok = await fetch(new URL('/healthz', url)).then(
      (r) => r.text().then(() => r.ok),
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) throw new Error(`haproxy never answered: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILL: Redis goes away at once. */
  stop(): Promise<void>;
  /** SIGTERM: Redis closes its connections and shuts down as on a planned restart. */
  shutdown(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

/** A redis-server of the test's own on a free port (never the shared one), without persistence. */
export async function startOwnRedis({ persist = false } = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      REDIS_SERVER as string,
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
        // persist: an append-only file in the test's folder, so a restart finds the sessions again.
        ...(persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
      ],
      { stdio: 'ignore' },
    );
    const until = Date.now() + 10_000;
    while (!ping(port)) {
      if (Date.now() > until) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await start();
  const end = async (signal: NodeJS.Signals) => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await once(child, 'exit');
    }
  };
  const stop = () => end('SIGKILL');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    shutdown: () => end('SIGTERM'),
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ping(port: number): boolean {
  try {
    return execFileSync('redis-cli', ['-p', String(port), 'ping'], {
      encoding: 'utf8',
      stdio: 'pipe',
    }).includes('PONG');
  } catch {
    return false;
  }
}

/** Waits until `check` holds (output arrives on its own schedule; no timing is asserted). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 15_000,
): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface Listener {
  /** The replica holding the stream (X-Mcp-Run-Replica). */
  readonly replica: string;
  /** Notifications received so far with this method. */
  count(method: string): number;
  close(): void;
}

/**
 * A 2026 `subscriptions/listen` for tools/list_changed through `url` (a replica or a balancer),
 * resolved once acknowledged; it counts every notification it receives after that.
 */
export function listen(url: string, id: string): Promise<Listener> {
  const { message, headers } = modernRequest(id, 'subscriptions/listen', {
    notifications: { toolsListChanged: true },
  });
  return new Promise((resolve, reject) => {
    const counts = new Map<string, number>();
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          ...headers,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
      },
      (res) => {
        const replica = String(res.headers['x-mcp-run-replica'] ?? '');
        let buffered = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          buffered += chunk;
          const cut = buffered.lastIndexOf('\n\n');
          if (cut === -1) return;
          for (const m of parseSse(buffered.slice(0, cut + 2)).messages) {
            counts.set(m.method, (counts.get(m.method) ?? 0) + 1);
            if (m.method === 'notifications/subscriptions/acknowledged')
              resolve({
                replica,
                count: (method) => counts.get(method) ?? 0,
                close: () => outgoing.destroy(),
              });
          }
          buffered = buffered.slice(cut + 2);
        });
        res.on('end', () =>
          reject(new Error(`the listen stream ended before its acknowledgement (HTTP ${res.statusCode})`)),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(message));
  });
}
