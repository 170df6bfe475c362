/**
 * The audit trail's parts on real files: what the record keeps of the arguments (secrets, the
 * note's JSON Pointers, size and depth bounds), the decision read from a GovernanceRefusal, a
 * chain continued across a restart under a fixed writer name, a line cut short by a crash, and
 * rotation with `keep` (the chain then begins after files no longer there: said, not a break).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sinceTime } from '../../src/cli/audit.js';
import { noteDecision, noteRedacted } from '../../src/governance/audit/note.js';
import { orderFiles, type ScanReport, scanAudit } from '../../src/governance/audit/query.js';
import { MAX_ARGUMENT_BYTES, redactArguments } from '../../src/governance/audit/record.js';
import {
  type AuditTrail,
  openAuditTrail,
  openAuditWriter,
  parseSize,
} from '../../src/governance/audit/trail.js';
import { AuditBackpressure } from '../../src/governance/audit/writer.js';
import { GovernanceRefusal } from '../../src/governance/refusal.js';
import { StderrLogger } from '../../src/log.js';
import { CLI } from '../helpers/demo.js';

type Json = any;

const hide = (text: string) => text.split('s3cret-value').join('***');
const quiet = new StderrLogger('silent');

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-unit-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function open(dir: string, extra: Record<string, unknown> = {}): Promise<AuditTrail> {
  return openAuditTrail({ file: 'audit.jsonl', ...extra }, { base: dir, log: quiet, secret: hide });
}

function lines(file: string): Json[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

async function scan(files: string[], filter = {}): Promise<{ report: ScanReport; matched: Json[] }> {
  const matched: Json[] = [];
  const report = await scanAudit(files, filter, { record: (_line, record) => matched.push(record) });
  return { report, matched };
}

/** One tools/call through the trail, as connection.run drives it. */
async function call(trail: AuditTrail, args: Json, during?: () => void, thrown?: unknown): Promise<void> {
  const record = trail.begin({ method: 'tools/call', params: { name: 't', arguments: args } });
  assert.ok(record);
  await record.run(async () => {
    await new Promise((r) => setImmediate(r));
    during?.();
    return {};
  });
  record.end(
    thrown === undefined
      ? { outcome: 'ok', bytes: 10 }
      : { outcome: 'error', code: -32040, thrown, bytes: 20 },
  );
}

describe('audit records: what they keep of the arguments', () => {
  it('replaces secrets in values and keys, and the JSON Pointers the note names', () => {
    const args = {
      q: 'find s3cret-value please',
      's3cret-value': 1,
      card: { number: '4111', name: 'A' },
      list: ['a', 'b', { 'x/y': 2 }],
      'til~de': 3,
    };
    const kept = redactArguments(args, ['/card/number', '/list/1', '/list/2/x~1y', '/til~0de'], hide);
    assert.deepEqual(kept, {
      q: 'find *** please',
      '***': 1,
      card: { number: '[redacted]', name: 'A' },
      list: ['a', '[redacted]', { 'x/y': '[redacted]' }],
      'til~de': '[redacted]',
    });
    assert.equal(redactArguments(args, [''], hide), '[redacted]');
    assert.equal(redactArguments(undefined, [], hide), undefined);
  });

  it('records arguments past the size bound by size only, and cuts deep nesting', () => {
    const big = { text: 'x'.repeat(MAX_ARGUMENT_BYTES) };
    assert.deepEqual(redactArguments(big, [], hide), {
      $omitted: 'too large',
      bytes: MAX_ARGUMENT_BYTES + 11,
    });
    let deep: Json = 'bottom';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    assert.match(JSON.stringify(redactArguments(deep, [], hide)), /"\[too deep\]"/);
  });

  it('reads sizes and --since as documented', () => {
    assert.equal(parseSize('10MB'), 10 * 1024 * 1024);
    assert.equal(parseSize('512kb'), 512 * 1024);
    assert.equal(parseSize(2048), 2048);
    assert.throws(() => parseSize('ten'), /not a size/);
    assert.equal(sinceTime('2h', 10_000_000), 10_000_000 - 7_200_000);
    assert.equal(sinceTime('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T00:00:00Z'));
    assert.equal(sinceTime('soon'), undefined);
    assert.deepEqual(orderFiles(['a.jsonl', 'a.jsonl.10', 'a.jsonl.2']), [
      'a.jsonl.2',
      'a.jsonl.10',
      'a.jsonl',
    ]);
  });
});

describe('audit trail on real files', () => {
  it("takes what the stages note across awaits, and a refusal's decision and rule", async () =>
    withDir(async (dir) => {
      const trail = await open(dir);
      await call(trail, { card: '4111', who: 'me' }, () => {
        noteRedacted(['/card']);
        noteDecision('allow', 'support-may-read');
      });
      await call(
        trail,
        { q: 1 },
        undefined,
        new GovernanceRefusal('deny', 'no-exports', 'refused by no-exports'),
      );
      await trail.close();
      const [first, second] = lines(join(dir, 'audit.jsonl')).filter((r) => r.type === 'request');
      assert.deepEqual(first.arguments, { card: '[redacted]', who: 'me' });
      assert.equal(first.decision, 'allow');
      assert.equal(first.rule, 'support-may-read');
      assert.equal(second.decision, 'deny');
      assert.equal(second.rule, 'no-exports');
      const { matched } = await scan([join(dir, 'audit.jsonl')], { decision: 'deny' });
      assert.deepEqual(
        matched.map((r) => r.rule),
        ['no-exports'],
      );
      // Outside a request a note goes nowhere, and costs nothing.
      noteRedacted(['/x']);
    }));

  it('continues the chain of a fixed writer name across a restart; a default name starts its own', async () =>
    withDir(async (dir) => {
      const file = join(dir, 'audit.jsonl');
      for (let run = 0; run < 2; run++) {
        const trail = await open(dir, { writer: 'api-1' });
        await call(trail, { run });
        await trail.close();
      }
      const records = lines(file);
      const starts = records.filter((r) => r.type === 'start');
      assert.equal(starts.length, 2);
      assert.equal(
        starts[1].prev,
        records[starts[1].seq - 1].hash,
        'the second start follows the first close',
      );
      let { report } = await scan([file]);
      assert.equal(report.writers, 1);
      assert.deepEqual(report.breaks, []);

      const other = await open(dir);
      await call(other, { run: 2 });
      await other.close();
      ({ report } = await scan([file]));
      assert.equal(report.writers, 2);
      assert.equal(report.records, 3);
      assert.deepEqual(report.breaks, []);
    }));

  it('reports a line cut short by a crash, and goes on writing on a line of its own', async () =>
    withDir(async (dir) => {
      const file = join(dir, 'audit.jsonl');
      const trail = await open(dir, { writer: 'w' });
      await call(trail, { n: 1 });
      await trail.flush();
      appendFileSync(file, '{"v":1,"type":"request","writer":"w","ti');
      const again = await open(dir, { writer: 'w' });
      await call(again, { n: 2 });
      await again.close();
      const { report } = await scan([file]);
      assert.deepEqual(
        report.breaks.map((b) => [b.line, b.why]),
        [[3, 'not JSON: the line was cut short or altered']],
      );
      assert.equal(report.records, 2);
    }));

  it('rotates by size and keeps `keep` files; the chain starts after the ones deleted, without a break', async () =>
    withDir(async (dir) => {
      const trail = await open(dir, { rotate: '1KB', keep: 2 });
      for (let n = 0; n < 40; n++) await call(trail, { n, pad: 'p'.repeat(100) });
      await trail.close();
      const files = readdirSync(dir).map((f) => join(dir, f));
      assert.equal(files.length, 3, files.join(', '));
      for (const f of files) assert.ok(readFileSync(f).length <= 1024 + 600, f);
      const { report } = await scan(files);
      assert.deepEqual(report.breaks, []);
      assert.ok(report.notes.some((n) => /begins at .*audit\.jsonl\.\d+:1 after records not given/.test(n)));
      assert.ok(report.records > 0 && report.records < 40);
    }));
});

describe('audit trail: the queue budget', () => {
  it('counts the bytes a record takes, not its characters', async () => {
    await withDir(async (dir) => {
      const pressure: boolean[] = [];
      const writer = await openAuditWriter(
        { file: 'audit.jsonl', buffer: '4KB', onBackpressure: 'refuse' },
        { base: dir, log: quiet, onPressure: (over) => pressure.push(over) },
      );
      try {
        // 1,500 characters, 4,500 bytes: over a budget of 4,096 bytes as soon as it is queued.
        writer.append(JSON.stringify({ v: 1, type: 'request', note: '✓'.repeat(1500) }));
        assert.deepEqual(pressure, [true]);
        assert.throws(() => writer.admit(), AuditBackpressure);
        await writer.flush();
        assert.deepEqual(pressure, [true, false]);
        assert.equal(writer.admit(), undefined);
      } finally {
        await writer.close();
      }
    });
  });
});

describe('mcp-run audit --json', () => {
  it('writes C1 controls and bidi overrides a caller sent as \\uXXXX: valid JSON, the same value', async () => {
    await withDir(async (dir) => {
      const trail = await open(dir);
      const text = 'bob\u202eevil\u009b2J\u0085\u2066end';
      await call(trail, { text });
      await trail.close();
      const run = spawnSync(process.execPath, [CLI, 'audit', join(dir, 'audit.jsonl'), '--json'], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 0, run.stderr);
      assert.doesNotMatch(run.stdout, /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
      assert.match(run.stdout, /bob\\u202eevil\\u009b2J\\u0085\\u2066end/);
      const records = run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(records.find((r) => r.method === 'tools/call')?.arguments.text, text);
    });
  });
});
