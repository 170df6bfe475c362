/**
 * Issue 13 over real stdio, against the built CLI (`node dist/cli/main.js mcp.yaml`): a result
 * far larger than its budget is cut (or refused) while it arrives, and the server's memory stays
 * bounded by about budget × concurrency. Each case runs three calls at once and reads the server's
 * VmRSS and VmHWM (its peak) from /proc: PostgreSQL and MariaDB with `repeat('x', 4000000)` over
 * 100k rows and `maxRows: 200` (800 MB a call without the budget), an HTTP upstream on 127.0.0.1
 * sending 200 MB, and a 200 MB file resource. The bounds are generous checks, not benchmarks.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MYSQL_SKIP, MYSQL_URL, PG_SKIP, PG_URL } from '../helpers/databases.js';
import { CLI, tempFiles } from '../helpers/demo.js';

/**
 * A stdio client for answers of many megabytes: it looks for the end of a line only in the chunk
 * just read (the shared BigPeer rescans its whole buffer per chunk, which is slow at 8 MB).
 */
class BigPeer {
  readonly child: ChildProcessWithoutNullStreams;
  private chunks: Buffer[] = [];
  private readonly waiting = new Map<number, (m: Record<string, any>) => void>();

  constructor(args: string[], cwd: string) {
    this.child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: 'pipe' });
    this.child.stderr.resume();
    this.child.stdout.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        this.chunks.push(chunk.subarray(start, nl));
        const message = JSON.parse(Buffer.concat(this.chunks).toString('utf8')) as Record<string, any>;
        this.chunks = [];
        start = nl + 1;
        if (typeof message.id === 'number' && !('method' in message)) this.waiting.get(message.id)?.(message);
      }
      if (start < chunk.length) this.chunks.push(chunk.subarray(start));
    });
  }

  send(message: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  request(message: Record<string, unknown> & { id: number }): Promise<Record<string, any>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${message.id} within 60 s`)), 60_000);
      this.waiting.set(message.id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.send(message);
    });
  }

  async end(): Promise<number | null> {
    this.child.stdin.end();
    const [code] = await once(this.child, 'exit');
    return code as number | null;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

const MIB = 1024 * 1024;
/** What the server may grow by, at its peak, while three oversized calls run. */
const BOUND = 300 * MIB;

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(kb![1]) * 1024;
}

const files = tempFiles({});
const peers: BigPeer[] = [];
let nextId = 1;
after(() => {
  for (const peer of peers) peer.kill();
  files.cleanup();
});

async function start(name: string, manifest: string): Promise<BigPeer> {
  writeFileSync(join(files.dir, `${name}.yaml`), manifest);
  const peer = new BigPeer([`${name}.yaml`], files.dir);
  peers.push(peer);
  const init = await peer.request({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
  });
  assert.equal(init.result.protocolVersion, '2025-11-25');
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return peer;
}

const request = (peer: BigPeer, method: string, params: Record<string, unknown>) =>
  peer.request({ jsonrpc: '2.0', id: nextId++, method, params });

/** Runs the three calls at once; returns their answers and the server's growth at its peak. */
async function measure(peer: BigPeer, label: string, calls: () => Promise<Record<string, any>>) {
  const pid = peer.child.pid!;
  const before = status(pid, 'VmRSS');
  const answers = await Promise.all([calls(), calls(), calls()]);
  const peak = status(pid, 'VmHWM');
  const afterRss = status(pid, 'VmRSS');
  console.log(
    `${label}: server VmRSS ${(before / MIB).toFixed(1)} MiB before, ${(afterRss / MIB).toFixed(1)} MiB after, peak VmHWM ${(peak / MIB).toFixed(1)} MiB (growth ${((peak - before) / MIB).toFixed(1)} MiB)`,
  );
  assert.ok(
    peak - before < BOUND,
    `${label}: the server grew by ${((peak - before) / MIB).toFixed(1)} MiB at its peak`,
  );
  return answers;
}

const text = (res: Record<string, any>) => String(res.result.content[0].text);

const sqlCases = [
  {
    engine: 'postgres',
    skip: PG_SKIP,
    url: PG_URL,
    kind: 'postgres',
    sql: "SELECT i, repeat('x', 4000000) AS v FROM generate_series(1, 100000) AS s(i)",
  },
  {
    engine: 'mariadb',
    skip: MYSQL_SKIP,
    url: MYSQL_URL,
    kind: 'mysql',
    sql: "SELECT seq AS i, repeat('x', 4000000) AS v FROM seq_1_to_100000",
  },
] as const;

for (const c of sqlCases) {
  describe(`${c.engine}: 4 MB values over 100k rows, maxRows 200, three calls at once`, {
    skip: c.skip,
  }, () => {
    test(`the rows are cut by the byte budget and the server grows by less than ${BOUND / MIB} MiB`, async () => {
      const peer = await start(
        c.engine,
        [
          `server: { name: budget-${c.engine}, version: 1.0.0 }`,
          `sources: { db: { kind: ${c.kind}, url: "${c.url}", allowPrivilegedRole: true } }`,
          'tools:',
          '  query: { kind: sql-query, source: db, maxRows: 200, timeoutMs: 60000 }',
        ].join('\n'),
      );
      const answers = await measure(peer, c.engine, () =>
        request(peer, 'tools/call', { name: 'query', arguments: { sql: c.sql } }),
      );
      for (const res of answers) {
        assert.notEqual(res.result.isError, true, text(res));
        assert.equal(res.result.structuredContent.truncated, true);
        assert.equal(res.result.structuredContent.rows.length, 1);
        assert.equal(res.result.structuredContent.rows[0].v.length, 4_000_000);
        assert.match(
          text(res),
          /cut at 1 because the next row would pass the source's byte budget \(maxBytes: 4194304\)/,
        );
      }
      // The server goes on serving.
      const small = await request(peer, 'tools/call', {
        name: 'query',
        arguments: { sql: 'SELECT 1 AS one' },
      });
      assert.match(text(small), /\| 1 \|/);
      assert.equal(await peer.end(), 0);
    });
  });
}

describe('http: an upstream sending 200 MB, three calls at once', () => {
  let server: Server | undefined;
  after(() => server?.close());

  test(`the answer is refused at the response cap and the server grows by less than ${BOUND / MIB} MiB`, async () => {
    let sent = 0;
    server = createServer((_req, res) => {
      // Chunked, no content-length: the cap must hold while the body streams.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(MIB, 'y');
      let left = 200;
      const pump = () => {
        while (left > 0) {
          left--;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => {
        left = 0;
      });
      pump();
    });
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server!.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    const peer = await start(
      'http',
      [
        'server: { name: budget-http, version: 1.0.0 }',
        `sources: { up: { kind: http, baseUrl: "http://127.0.0.1:${port}", timeoutMs: 60000 } }`,
        'tools:',
        '  big: { kind: http, source: up, path: /big }',
      ].join('\n'),
    );
    const answers = await measure(peer, 'http', () =>
      request(peer, 'tools/call', { name: 'big', arguments: {} }),
    );
    console.log(
      `http: the upstream wrote ${(sent / MIB).toFixed(0)} MiB of 600 before the calls stopped reading`,
    );
    for (const res of answers) {
      assert.equal(res.result.isError, true);
      assert.match(text(res), /more than the 5242880-byte cap \(maxResponseBytes on the source\)/);
    }
    assert.ok(sent < 600 * MIB, 'the whole bodies were read');
    assert.equal(await peer.end(), 0);
  });
});

describe('files: a 200 MB file resource, three reads at once', () => {
  test(`the read is refused at the cap and the server grows by less than ${BOUND / MIB} MiB`, async () => {
    const path = join(files.dir, 'big.log');
    writeFileSync(path, '');
    truncateSync(path, 200 * MIB);
    const peer = await start(
      'files',
      [
        'server: { name: budget-files, version: 1.0.0 }',
        'resources:',
        '  big: { kind: file, path: ./big.log }',
      ].join('\n'),
    );
    const list = await request(peer, 'resources/list', {});
    const uri = String(list.result.resources[0].uri);
    const answers = await measure(peer, 'files', () => request(peer, 'resources/read', { uri }));
    for (const res of answers) {
      assert.equal(res.result, undefined);
      assert.match(String(res.error.message), /more than the resource's maxBytes cap of 10485760/);
    }
    assert.equal(await peer.end(), 0);
  });
});
