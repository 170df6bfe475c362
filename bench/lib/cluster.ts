/**
 * What the replicated scenarios (`replicas`, `soak`) stand up: a redis-server of their own, free
 * ports, and HAProxy round-robin over mcp-run replicas.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));
export const REDIS_SERVER = [
  '/usr/bin/redis-server',
  '/usr/sbin/redis-server',
  '/usr/local/bin/redis-server',
].find((p) => existsSync(p));

export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
}

/** A redis-server of the scenario's own (no persistence): its command counts are the replicas' only. */
export async function ownRedis(): Promise<OwnRedis> {
  if (REDIS_SERVER === undefined)
    throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; ; i++) {
    try {
      if (
        execFileSync('redis-cli', ['-p', String(port), 'ping'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).includes('PONG')
      )
        break;
    } catch {
      // not up yet
    }
    if (i > 200 || child.exitCode !== null) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url: `redis://127.0.0.1:${port}`, port, child };
}

/** Calls per command Redis has run so far (INFO commandstats), the INFO calls themselves left out. */
export function redisCommandStats(port: number): Map<string, number> {
  const text = execFileSync('redis-cli', ['-p', String(port), 'info', 'commandstats'], { encoding: 'utf8' });
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm))
    if (m[1] !== 'info') calls.set(m[1] as string, Number(m[2]));
  return calls;
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * HAProxy round-robin over the replicas (no stickiness); resolves once it forwards. `failover`
 * adds what a deployment that loses replicas runs with: /healthz checks, and connection failures
 * retried on another replica (`retries`, `option redispatch`), so only the requests a dead replica
 * already held can fail.
 */
export async function haproxy(
  work: string,
  name: string,
  urls: readonly string[],
  { failover = false } = {},
): Promise<{ url: string; child: ChildProcess }> {
  if (HAPROXY === undefined) throw new Error('HAProxy is not installed (apt-get install -y haproxy)');
  const port = await freePort();
  const cfg = join(work, `${name}.cfg`);
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 1024',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      ...(failover ? ['  retries 3', '  option redispatch 1'] : []),
      'frontend mcp',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      ...(failover ? ['  option httpchk GET /healthz'] : []),
      ...urls.map(
        (u, i) => `  server r${i} ${new URL(u).host}${failover ? ' check inter 300ms fall 3 rise 1' : ''}`,
      ),
      '',
    ].join('\n'),
  );
  const child = spawn(HAPROXY, ['-f', cfg, '-db'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; ; i++) {
    const ok = await fetch(new URL('/healthz', url)).then(
      (r) => r.text().then(() => r.ok),
      () => false,
    );
    if (ok) break;
    if (i > 200 || child.exitCode !== null) throw new Error('haproxy did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url, child };
}
