/**
 * A full disk, for real: a 512 KiB tmpfs mounted for the test (root only; skipped with the reason
 * where mounting is not allowed) holds a writable SQLite source and the file mcp-run's stderr (its
 * logs) goes to. mcp-run runs as a real process on stdio with the official v1 client and debug
 * logging. Once the disk is full, a write gets a clear error ("disk is full"), reads of the same
 * database and every other tool go on being served, and a log line that cannot be written loses
 * only itself: the process keeps answering.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from '../helpers/demo.js';
import { outcome } from './harness.js';

/** Mounts a small tmpfs, or says why it cannot. */
function mountTmpfs(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `cannot mount a tmpfs here: ${(err as { stderr?: Buffer }).stderr?.toString().trim() || String(err)}`;
  }
}

const base = mkdtempSync(join(tmpdir(), 'mcp-run-faults-disk-'));
const disk = join(base, 'disk');
execFileSync('mkdir', ['-p', disk]);
const skip = mountTmpfs(disk);

let client: Client;
let logFd: number | undefined;

before(async () => {
  if (skip) return;
  writeFileSync(join(disk, 'seed.sql'), 'CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB);\n');
  writeFileSync(
    join(base, 'mcp.yaml'),
    [
      'sources:',
      `  db: { kind: sqlite, path: ${join(disk, 'data.db')}, seed: ${join(disk, 'seed.sql')}, readOnly: false }`,
      'tools:',
      '  grow:',
      '    kind: sql',
      '    source: db',
      '    description: Adds a 64 KiB row.',
      '    sql: INSERT INTO t (b) VALUES (randomblob(65536))',
      '  count:',
      '    kind: sql',
      '    source: db',
      '    description: How many rows.',
      '    readOnly: true',
      '    sql: SELECT count(*) AS n FROM t',
      '  hello:',
      '    kind: content',
      '    description: Says hello.',
      '    content:',
      '      - text: hello',
      '',
    ].join('\n'),
  );
  // The logs go to a file on the same small disk.
  logFd = openSync(join(disk, 'mcp-run.log'), 'a');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, join(base, 'mcp.yaml'), '--log-level', 'debug', '--no-watch'],
    stderr: logFd,
  });
  client = new Client({ name: 'faults-disk', version: '1' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (logFd !== undefined) closeSync(logFd);
  if (!skip) execFileSync('umount', ['-l', disk]);
  rmSync(base, { recursive: true, force: true });
});

const call = (name: string) => outcome(() => client.callTool({ name, arguments: {} }) as never, 10_000);

describe('a full disk', { skip }, () => {
  it('a write gets a clear error; reads, other tools and the process go on', async () => {
    assert.equal((await call('grow')).kind, 'ok');
    let full: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 20; i++) {
      const o = await call('grow');
      if (o.kind !== 'ok') {
        full = o;
        break;
      }
    }
    assert.ok(full, 'the disk never filled');
    assert.equal(full.kind, 'error', JSON.stringify(full));
    assert.match(full.kind === 'error' ? full.text : '', /full/i);
    // Fill what is left (the log file too): nothing more can be written anywhere on it.
    try {
      writeFileSync(join(disk, 'filler'), Buffer.alloc(1024 * 1024));
    } catch {
      // ENOSPC: as intended.
    }
    // The log file's last page too, to the byte.
    for (const chunk of ['x'.repeat(256), 'x']) {
      try {
        for (let i = 0; i < 8192; i++) appendFileSync(join(disk, 'mcp-run.log'), chunk);
      } catch {
        // ENOSPC: full.
      }
    }
    const logBytes = statSync(join(disk, 'mcp-run.log')).size;
    for (let i = 0; i < 5; i++) {
      const count = await call('count');
      assert.equal(count.kind, 'ok', JSON.stringify(count));
      const hello = await call('hello');
      assert.equal(hello.kind, 'ok', JSON.stringify(hello));
      const again = await call('grow');
      assert.equal(again.kind, 'error', JSON.stringify(again));
    }
    // Every call logged a debug line, and none of them could be written: the process went on.
    assert.equal(statSync(join(disk, 'mcp-run.log')).size, logBytes, 'the log grew on a full disk');
    // Room again: writes succeed once more.
    rmSync(join(disk, 'filler'), { force: true });
    execFileSync('truncate', ['-s', '0', join(disk, 'mcp-run.log')]);
    assert.equal((await call('hello')).kind, 'ok');
  });
});
