/**
 * The audit trail of `--workers` (src/governance/audit/ipc-writer.ts) over the IPC channel of
 * test/helpers/ipc-pair.ts, with a real file: the primary's one writer takes the records of every
 * worker into one chain, a worker whose `server.audit` differs is told and writes to the primary's
 * trail, and a worker whose primary is gone puts its records on stderr instead of dropping them.
 * The real cluster runs in test/e2e/workers-audit.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hostAudit, openWorkerTrail } from '../../src/governance/audit/ipc-writer.js';
import { scanAudit } from '../../src/governance/audit/query.js';
import type { AuditTrail } from '../../src/governance/audit/trail.js';
import { type Logger, StderrLogger } from '../../src/log.js';
import { IpcRooms } from '../../src/util/ipc.js';
import { ipcPair } from '../helpers/ipc-pair.js';

const quiet = new StderrLogger('silent');
const same = (text: string) => text;

/** A logger that keeps its warnings. */
function warnings(): Logger & { readonly said: string[] } {
  const said: string[] = [];
  return { said, debug() {}, info() {}, warn: (m) => void said.push(m), error: (m) => void said.push(m) };
}

function call(trail: AuditTrail, n: number): void {
  const record = trail.begin({ method: 'tools/call', params: { name: 'echo', arguments: { n } } });
  assert.ok(record !== undefined, 'tools/call is audited');
  record.end({ outcome: 'ok', bytes: 1 });
}

describe('audit over IPC (--workers): the primary is the one writer', () => {
  it("two workers write one chain; a worker with other settings is told, and uses the primary's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-ipc-'));
    try {
      const rooms = new IpcRooms();
      const host = hostAudit(rooms, quiet);
      const [one, two] = [ipcPair(rooms), ipcPair(rooms)];
      const first = await openWorkerTrail(
        { file: 'audit.jsonl' },
        { client: one.client, base: dir, log: quiet, secret: same },
      );
      const log = warnings();
      const second = await openWorkerTrail(
        { file: 'audit.jsonl', include: ['tools/call', 'ping'] },
        { client: two.client, base: dir, log, secret: same },
      );
      assert.equal(second.writerName, first.writerName, 'one writer name for both');
      assert.match(log.said.join('\n'), /server\.audit changed since the server started/);
      assert.equal(second.begin({ method: 'ping', params: {} }), undefined, "the primary's include applies");
      for (let n = 0; n < 5; n++) {
        call(first, n);
        call(second, 100 + n);
      }
      await Promise.all([first.close(), second.close()]);
      await host.close();
      const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        lines.map((r) => r.type),
        ['start', ...Array(10).fill('request'), 'close'],
      );
      assert.equal(lines[0].pid, process.pid, 'the host (here this process) opened the writer');
      assert.deepEqual(
        lines.filter((r) => r.type === 'request').map((r) => r.arguments.n),
        [0, 100, 1, 101, 2, 102, 3, 103, 4, 104],
        'in the order they arrived',
      );
      const report = await scanAudit([join(dir, 'audit.jsonl')], {}, { record: () => {} });
      assert.deepEqual(report.breaks, []);
      assert.equal(report.writers, 1);
      assert.equal(report.records, 10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a worker whose primary is gone puts its records on stderr, unsealed', () => {
    // In a process of its own, to read its stderr.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-ipc-'));
    const script = `
      import { hostAudit, openWorkerTrail } from './src/governance/audit/ipc-writer.js';
      import { StderrLogger } from './src/log.js';
      import { IpcRooms } from './src/util/ipc.js';
      import { ipcPair } from './test/helpers/ipc-pair.js';
      const log = new StderrLogger('error');
      const rooms = new IpcRooms();
      hostAudit(rooms, log);
      const pair = ipcPair(rooms);
      const trail = await openWorkerTrail({ file: 'audit.jsonl' }, { client: pair.client, base: ${JSON.stringify(dir)}, log, secret: (t) => t });
      pair.disconnect();
      trail.begin({ method: 'tools/call', params: { name: 'echo', arguments: { n: 'after-the-primary' } } }).end({ outcome: 'ok', bytes: 1 });
      await trail.close();
    `;
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, /1 record\(s\) may not reach the trail \(the primary process is gone\)/);
      const spilled = run.stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      assert.equal(spilled.length, 1, run.stderr);
      assert.equal(spilled[0].arguments.n, 'after-the-primary');
      assert.equal(spilled[0].hash, undefined, 'unsealed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a word of pressure that comes before the open's answer is not lost (it is the newer one)", async () => {
    // A primary whose queue goes back under its budget while it answers `open` with `over: true`:
    // its push leaves before the answer, so the worker reads it first.
    const rooms = new IpcRooms();
    const pair = ipcPair(rooms);
    rooms.handle('audit', (peer, op) => {
      assert.equal(op, 'open');
      peer.send({ mcpRun: 'push', room: 'audit', data: { over: false } });
      return {
        name: 'primary',
        include: ['tools/call'],
        budgetBytes: 1024,
        onBackpressure: 'block',
        over: true,
        changed: false,
      };
    });
    const trail = await openWorkerTrail(
      { file: 'audit.jsonl' },
      { client: pair.client, base: '/', log: quiet, secret: same },
    );
    const record = trail.begin({ method: 'tools/call', params: { name: 'echo', arguments: {} } });
    assert.equal(record?.admit(), undefined, 'not held: the primary said it is under its budget');
  });

  it("a worker whose manifest no longer has server.audit writes to the primary's trail; with none open, it cannot", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-ipc-'));
    try {
      const rooms = new IpcRooms();
      const host = hostAudit(rooms, quiet);
      const [one, two, lone] = [ipcPair(rooms), ipcPair(rooms), ipcPair(new IpcRooms())];
      hostAudit(lone.rooms, quiet);
      await assert.rejects(
        openWorkerTrail(undefined, { client: lone.client, base: dir, log: quiet, secret: same }),
        /no audit trail is open/,
      );
      const first = await openWorkerTrail(
        { file: 'audit.jsonl' },
        { client: one.client, base: dir, log: quiet, secret: same },
      );
      const log = warnings();
      const second = await openWorkerTrail(undefined, { client: two.client, base: dir, log, secret: same });
      assert.match(log.said.join('\n'), /server\.audit changed since the server started/);
      call(first, 1);
      call(second, 2);
      await Promise.all([first.close(), second.close()]);
      await host.close();
      const requests = readFileSync(join(dir, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((r) => r.type === 'request');
      assert.deepEqual(
        requests.map((r) => r.arguments.n),
        [1, 2],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses sink: stderr (the workers share that stderr), and writes no line a worker sends that is not one JSON record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-ipc-'));
    try {
      const refused = ipcPair(new IpcRooms());
      hostAudit(refused.rooms, quiet);
      await assert.rejects(
        openWorkerTrail({ sink: 'stderr' }, { client: refused.client, base: dir, log: quiet, secret: same }),
        /sink: stderr cannot be kept with --workers/,
      );
      const rooms = new IpcRooms();
      const log = warnings();
      const host = hostAudit(rooms, log);
      const pair = ipcPair(rooms);
      const trail = await openWorkerTrail(
        { file: 'audit.jsonl' },
        { client: pair.client, base: dir, log: quiet, secret: same },
      );
      pair.client.note('audit', 'append', ['{"forged":1}\n{"type":"request"}']);
      pair.client.note('audit', 'append', [42]);
      call(trail, 1);
      await trail.close();
      await host.close();
      assert.equal(log.said.filter((m) => /not one JSON line; not written/.test(m)).length, 2);
      const report = await scanAudit([join(dir, 'audit.jsonl')], {}, { record: () => {} });
      assert.deepEqual(report.breaks, []);
      assert.equal(report.records, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
