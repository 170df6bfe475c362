/**
 * Issue 13 over real stdio, against the built CLI (`node dist/cli/main.js mcp.yaml`) and a real
 * SQLite file: a runaway query does not freeze the server (ping is answered while it runs, the call
 * ends at its timeout, the next query works), SIGTERM ends a server whose query is running, and a
 * flood of big blobs is cut by the byte budget without the server's memory growing with it.
 * The bounds are generous checks, not benchmarks.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';

const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';
const MIB = 1024 * 1024;

const MANIFEST = [
  'server: { name: sqlite-runaway, version: 1.0.0 }',
  'sources: { db: { kind: sqlite, path: db.sqlite, seed: seed.sql } }',
  'tools:',
  '  query: { kind: sql-query, source: db, timeoutMs: 2000, maxRows: 50 }',
  '  slow: { kind: sql-query, source: db, timeoutMs: 120000 }',
].join('\n');

/** VmRSS of a process, in bytes. */
function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(kb![1]) * 1024;
}

/** The worker processes the server started (its children). */
function children(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

/** Running (not a zombie) process. */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    return !/State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

describe('sqlite: a runaway query never freezes the server (issue 13)', () => {
  const files = tempFiles({
    'mcp.yaml': MANIFEST,
    'seed.sql': 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);',
  });
  let nextId = 1;
  const peers: RawStdioPeer[] = [];
  /** A server, initialized in the 2025 era (where `ping` lives), with one query served. */
  const start = async () => {
    const peer = new RawStdioPeer(['mcp.yaml'], files.dir);
    peers.push(peer);
    const init = await peer.request({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
    });
    assert.equal(init.result.protocolVersion, '2025-11-25');
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.match(text(await call(peer, 'query', 'SELECT count(*) AS n FROM t')), /\| 3 \|/);
    return peer;
  };
  const call = (peer: RawStdioPeer, name: string, sql: string) =>
    peer.request({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name, arguments: { sql } },
    });
  const ping = async (peer: RawStdioPeer) => {
    const started = performance.now();
    const res = await peer.request({ jsonrpc: '2.0', id: nextId++, method: 'ping', params: {} });
    assert.deepEqual(res.result, {});
    return performance.now() - started;
  };
  const text = (res: Record<string, any>) => String(res.result.content[0].text);

  after(() => {
    for (const peer of peers) peer.kill();
    files.cleanup();
  });

  test('ping is answered within 1 s while the query runs; the call ends at its timeout; the next query works', async () => {
    const peer = await start();
    const started = performance.now();
    const runaway = call(peer, 'query', RUNAWAY);
    await new Promise((r) => setTimeout(r, 300));
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      latencies.push(await ping(peer));
      await new Promise((r) => setTimeout(r, 100));
    }
    const res = await runaway;
    const took = performance.now() - started;
    console.log(
      `ping during the runaway query: ${latencies.map((ms) => ms.toFixed(1)).join(', ')} ms; the call took ${took.toFixed(0)} ms`,
    );
    for (const ms of latencies) assert.ok(ms < 1000, `ping took ${ms} ms`);
    assert.equal(res.result.isError, true);
    assert.match(text(res), /SQL error: the query took longer than 2000 ms and was stopped/);
    assert.ok(took >= 1900 && took < 6000, `the call ended after ${took} ms, not at its 2000 ms timeout`);
    assert.match(text(await call(peer, 'query', 'SELECT count(*) AS n FROM t')), /\| 3 \|/);
    assert.equal(await peer.end(), 0);
  });

  test('a flood of 20 MB blobs is cut by the byte budget; the server stays within 400 MiB of where it was', async () => {
    const peer = await start();
    const server = peer.child.pid!;
    const before = rss(server);
    const res = await call(
      peer,
      'query',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x, randomblob(20000000) AS b FROM c LIMIT 1000',
    );
    const afterRss = rss(server);
    const workers = children(server).map((pid) => {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return Number(hwm![1]) * 1024;
    });
    console.log(
      `server VmRSS ${(before / MIB).toFixed(1)} MiB before, ${(afterRss / MIB).toFixed(1)} MiB after; worker peak VmHWM ${workers.map((b) => (b / MIB).toFixed(1)).join(', ')} MiB`,
    );
    assert.notEqual(res.result.isError, true);
    assert.equal(res.result.structuredContent.truncated, true);
    assert.match(
      text(res),
      /cut at 0 because the next row would pass the source's byte budget \(maxBytes: 4194304\)/,
    );
    assert.ok(afterRss - before < 400 * MIB, `the server grew by ${(afterRss - before) / MIB} MiB`);
    for (const peak of workers) assert.ok(peak < 400 * MIB, `a worker peaked at ${peak / MIB} MiB`);
    assert.equal(await peer.end(), 0);
  });

  test('SIGTERM ends a server whose query is running, and its worker with it', async () => {
    const peer = await start();
    const runaway = call(peer, 'slow', RUNAWAY);
    runaway.catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    const workers = children(peer.child.pid!);
    assert.equal(workers.length, 1);
    assert.ok(running(workers[0]!));
    const exited = once(peer.child, 'exit');
    const started = performance.now();
    peer.child.kill('SIGTERM');
    const timer = setTimeout(() => peer.kill(), 30_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    const took = performance.now() - started;
    console.log(`SIGTERM to exit: ${took.toFixed(0)} ms`);
    assert.deepEqual([code, signal], [0, null], 'the server did not exit on SIGTERM');
    for (let i = 0; i < 50 && running(workers[0]!); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(running(workers[0]!), false, 'the worker outlived the server');
  });
});
