/**
 * The audit trail end to end: the built CLI serving a manifest with `server.audit` over HTTP (in
 * front of a real oidc-provider, so records name a verified caller) and over stdio, driven by the
 * official clients. After a mixed run (calls, reads, gets, an unknown tool, a claim-bound argument
 * the caller tried to set) the files hold exactly one record per audited request, none of them the
 * manifest's `${env:…}` secret or the value put where a claim goes. Then `mcp-run audit` queries
 * them, and `--verify` names the line or file when a middle line is deleted or edited, or a
 * rotated file removed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Issuer, startIssuer } from '../e2e/oidc-issuer.js';
import { CLI } from '../helpers/demo.js';
import { modernRequest, post, type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = any;

const REDIRECT = 'http://127.0.0.1:7/callback';
const SECRET = 'audit-secret-7f3a9c1e';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

function manifest(audit: string[], auth: string[] = []): string {
  return [
    'server:',
    '  name: audited',
    ...auth,
    '  audit:',
    ...audit.map((line) => `    ${line}`),
    'sources:',
    '  db: { kind: sqlite, path: ./notes.db, seed: ./seed.sql }',
    '  api:',
    '    kind: http',
    '    baseUrl: http://127.0.0.1:9',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest reference, not a JS template.
    '    headers: { Authorization: "Bearer ${env:AUDIT_SECRET}" }',
    'tools:',
    '  echo:',
    '    kind: sql',
    '    source: db',
    '    description: Echoes its text.',
    '    sql: SELECT :text AS text',
    '    input:',
    '      text: { type: string }',
    ...(auth.length === 0
      ? []
      : [
          '  my_notes:',
          '    kind: sql',
          '    source: db',
          "    description: The caller's own notes.",
          '    sql: SELECT id, text FROM notes WHERE owner = :owner ORDER BY id',
          '    input:',
          '      owner: { type: string, fromClaim: email }',
        ]),
    'resources:',
    '  style: { kind: text, uri: "notes://style", text: Answer in plain English. }',
    'prompts:',
    '  review:',
    '    description: Review a change.',
    '    arguments:',
    '      diff: { description: The diff, required: true }',
    '    messages:',
    '      - text: "Review this change: {{diff}}"',
    '',
  ].join('\n');
}

function project(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-'));
  writeFileSync(
    join(dir, 'seed.sql'),
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, text TEXT NOT NULL);\nINSERT INTO notes (owner, text) VALUES ('alice@example.test', 'alice one'), ('bob@example.test', 'bob one');\n",
  );
  writeFileSync(join(dir, 'mcp.yaml'), text);
  return dir;
}

/** The audit files in `folder`, oldest first: `audit.jsonl.1`, `.2`, …, then `audit.jsonl`. */
function auditFiles(folder: string): string[] {
  const rank = (name: string) => Number(name.slice('audit.jsonl.'.length) || Number.POSITIVE_INFINITY);
  return readdirSync(folder)
    .filter((name) => name.startsWith('audit.jsonl'))
    .sort((a, b) => rank(a) - rank(b))
    .map((name) => join(folder, name));
}

function records(files: readonly string[]): Json[] {
  return files
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

function audit(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'audit', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('audit trail: mcp-run --http with server.audit, real clients, oidc-provider tokens', () => {
  let issuer: Issuer;
  let cli: ServedCli;
  let dir: string;
  let files: string[];

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['notes'],
      clients: { 'audit-client': REDIRECT },
      claims: (account) => ({ email: `${account}@example.test` }),
    });
    dir = project(
      manifest(
        ['file: logs/audit.jsonl', 'rotate: 2KB', 'keep: 50'],
        [
          '  auth:',
          `    issuer: ${issuer.url}`,
          '    scopes: { required: [notes] }',
          // Search mode, the tools pinned: call_tool reaches them too, recorded as the tool it names.
          '  catalog: { mode: search, pin: [echo, my_notes] }',
        ],
      ),
    );
    cli = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch'], {
      env: { ...process.env, AUDIT_SECRET: SECRET },
    });
    resource = cli.url;
    const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

    // alice, 2026 era: 7 audited requests (and a list, which is not audited by default).
    const alice = new ClientV2({ name: 'audit', version: '1' }, pin);
    await alice.connect(
      new HttpV2(new URL(cli.url), bearer(await issuer.token('audit-client', 'alice', 'notes'))),
    );
    await alice.listTools();
    const echoed = (await alice.callTool({ name: 'echo', arguments: { text: `leaked ${SECRET}` } })) as Json;
    assert.equal(echoed.isError, undefined, JSON.stringify(echoed));
    await alice.callTool({ name: 'echo', arguments: { text: 'plain' } });
    await alice.callTool({ name: 'my_notes', arguments: {} });
    await alice.readResource({ uri: 'notes://style' });
    await alice.getPrompt({ name: 'review', arguments: { diff: '+1 line' } });
    await assert.rejects(alice.callTool({ name: 'no_such_tool', arguments: {} }));
    await alice.close();
    // A request that carries a W3C trace context: its record names the trace.
    const traced = modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'traced' } });
    const tracedRes = await post(cli.url, traced.message, {
      ...traced.headers,
      authorization: `Bearer ${await issuer.token('audit-client', 'alice', 'notes')}`,
      traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
    });
    assert.equal(tracedRes.status, 200, tracedRes.body);

    // bob, 2025 era: 4 audited requests, two of them setting the claim-bound argument (one through
    // call_tool).
    const bob = new ClientV1({ name: 'audit', version: '1' });
    await bob.connect(
      new HttpV1(new URL(cli.url), bearer(await issuer.token('audit-client', 'bob', 'notes'))),
    );
    const override = (await bob.callTool({
      name: 'my_notes',
      arguments: { owner: 'alice@example.test' },
    })) as Json;
    assert.equal(override.isError, true);
    const viaCallTool = (await bob.callTool({
      name: 'call_tool',
      arguments: { name: 'my_notes', arguments: { owner: 'alice@example.test' } },
    })) as Json;
    assert.equal(viaCallTool.isError, true, JSON.stringify(viaCallTool));
    await bob.callTool({ name: 'echo', arguments: { text: 'from bob' } });
    await bob.readResource({ uri: 'notes://style' });
    await bob.close();

    assert.equal(await cli.stop(), 0, cli.stderr());
    files = auditFiles(join(dir, 'logs'));
  });

  after(async () => {
    await cli?.stop();
    await issuer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds exactly one record per audited request, with who, what, the outcome and the chain', () => {
    assert.ok(files.length >= 3, `rotation at 2KB made several files: ${files.join(', ')}`);
    const all = records(files);
    const requests = all.filter((r) => r.type === 'request');
    assert.equal(requests.length, 11, JSON.stringify(requests, null, 1));
    assert.equal(new Set(requests.map((r) => r.requestId)).size, 11);
    const count = (method: string) => requests.filter((r) => r.method === method).length;
    assert.deepEqual([count('tools/call'), count('resources/read'), count('prompts/get')], [8, 2, 1]);
    assert.equal(count('tools/list'), 0, 'lists are not audited unless included');
    for (const r of requests) {
      assert.equal(r.caller.issuer, issuer.url);
      assert.ok(['alice', 'bob'].includes(r.caller.subject), r.caller.subject);
      assert.equal(r.caller.client, 'audit-client');
      assert.equal(typeof r.durationMs, 'number');
      assert.ok(r.bytes > 0);
      assert.match(r.hash, /^[0-9a-f]{64}$/);
      assert.match(r.prev, /^[0-9a-f]{64}$/);
    }
    const unknown = requests.find((r) => r.entry === 'no_such_tool');
    assert.equal(unknown.outcome, 'error');
    assert.equal(unknown.code, -32602);
    const overridden = requests.filter((r) => r.entry === 'my_notes' && r.caller.subject === 'bob');
    assert.equal(overridden.length, 2, 'the direct call and the one through call_tool');
    for (const r of overridden) {
      assert.equal(r.outcome, 'tool_error');
      assert.deepEqual(r.arguments, { owner: '[redacted]' });
    }
    assert.equal(requests.filter((r) => r.entry === 'call_tool').length, 0);
    assert.ok(!JSON.stringify(all).includes('alice@example.test'), 'no value set where a claim goes');
    const traced = requests.find((r) => r.arguments?.text === 'traced');
    assert.equal(traced.traceId, TRACE_ID);
    assert.equal(requests.filter((r) => r.traceId !== undefined).length, 1);
    const read = requests.find((r) => r.method === 'resources/read');
    assert.equal(read.entry, 'notes://style');
    assert.deepEqual(
      all.filter((r) => r.type !== 'request').map((r) => r.type),
      ['start', ...Array(files.length - 1).fill('rotated'), 'close'],
      'start, one header per rotated file, close',
    );
  });

  it("writes neither the manifest's env secret nor what a caller put where a claim goes", () => {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      assert.doesNotMatch(text, new RegExp(SECRET));
      assert.doesNotMatch(text, /alice@example\.test/);
    }
    const leaked = records(files).find(
      (r) => r.entry === 'echo' && String(r.arguments.text).startsWith('leaked'),
    );
    assert.equal(leaked.arguments.text, 'leaked ***');
  });

  it('mcp-run audit filters the records and verifies the chain', () => {
    const verified = audit([...files, '--verify']);
    assert.equal(verified.status, 0, verified.stderr);
    assert.match(verified.stderr, /11 record\(s\) from 1 writer\(s\) in \d+ file\(s\); chain intact/);
    assert.equal(verified.stdout, '');
    const bob = audit([...files, '--caller', 'bob', '--json']);
    assert.equal(bob.status, 0, bob.stderr);
    const lines = bob.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 4);
    assert.ok(lines.every((r) => r.caller.subject === 'bob'));
    const notes = audit([...files, '--entry', 'my_*']);
    assert.equal(notes.stdout.trim().split('\n').length, 3, notes.stdout);
    assert.match(notes.stdout, /tool_error/);
    assert.equal(audit([...files, '--decision', 'deny', '--json']).stdout, '');
    assert.equal(audit([...files, '--since', '2999-01-01T00:00:00Z']).stdout, '');
    assert.equal(audit([...files, '--since', 'yesterday-ish']).status, 2);
  });

  /** A copy of the files to tamper with; returns the copies, in the same order as `files`. */
  function copyFiles(): { folder: string; copies: string[] } {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-run-audit-tamper-'));
    const copies = files.map((file) => {
      const copy = join(folder, file.slice(file.lastIndexOf('/') + 1));
      cpSync(file, copy);
      return copy;
    });
    return { folder, copies };
  }

  /** The file rotated first (`audit.jsonl.1`): its middle lines are requests. */
  const firstRotated = (copies: string[]) => copies.find((c) => c.endsWith('.jsonl.1')) as string;

  it('--verify reports a deleted middle line, naming the file and line', () => {
    const { folder, copies } = copyFiles();
    try {
      const target = firstRotated(copies);
      const lines = readFileSync(target, 'utf8').split('\n');
      assert.ok(lines.length >= 4);
      lines.splice(2, 1);
      writeFileSync(target, lines.join('\n'));
      const run = audit([...copies, '--verify']);
      assert.equal(run.status, 1);
      assert.match(
        run.stderr,
        /chain broken at .*audit\.jsonl\.1:3: 1 record\(s\) of this writer are missing/,
      );
      assert.match(run.stderr, /chain BROKEN/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('--verify reports an edited line, and one whose hash was recomputed', () => {
    const { folder, copies } = copyFiles();
    try {
      const target = firstRotated(copies);
      const original = readFileSync(target, 'utf8');
      const lines = original.split('\n');
      lines[1] = (lines[1] as string)
        .replace(/"outcome":"[a-z_]+"/, '"outcome":"ok"')
        .replace('"durationMs":', '"durationMs":1');
      writeFileSync(target, lines.join('\n'));
      const edited = audit([...copies, '--verify']);
      assert.equal(edited.status, 1);
      assert.match(edited.stderr, /audit\.jsonl\.1:2: the record was altered/);

      // A forger who re-seals the edited line (a valid hash) still breaks the next line's `prev`.
      const record = JSON.parse(original.split('\n')[1] as string);
      record.entry = 'forged';
      const body = JSON.stringify(record).replace(/,"seq":.*$/, '}');
      const canonical = `${body.slice(0, -1)},"seq":${record.seq},"prev":"${record.prev}"}`;
      const resealed = `${canonical.slice(0, -1)},"hash":"${createHash('sha256').update(canonical).digest('hex')}"}`;
      const again = original.split('\n');
      again[1] = resealed;
      writeFileSync(target, again.join('\n'));
      const forged = audit([...copies, '--verify']);
      assert.equal(forged.status, 1);
      assert.match(
        forged.stderr,
        /audit\.jsonl\.1:3: "prev" does not match the hash of the record before it/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('--verify reports a removed rotated file by name', () => {
    const { folder, copies } = copyFiles();
    try {
      const removed = copies.find((c) => c.endsWith('.jsonl.2')) as string;
      unlinkSync(removed);
      const run = audit([...copies.filter((c) => c !== removed), '--verify']);
      assert.equal(run.status, 1);
      assert.match(
        run.stderr,
        /audit\.jsonl\.3:1: this file follows audit\.jsonl\.2, .*the file audit\.jsonl\.2 is missing/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('audit trail: mcp-run over stdio with the official client', () => {
  it('records each call with no caller, the methods `include` adds, and closes its chain when the client goes', async () => {
    const dir = project(
      manifest(['file: audit.jsonl', 'include: [initialize, ping, tools/call, tools/list]']),
    );
    try {
      const client = new ClientV1({ name: 'audit-stdio', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, join(dir, 'mcp.yaml'), '--no-watch'],
          env: { ...(process.env as Record<string, string>), AUDIT_SECRET: SECRET },
          stderr: 'ignore',
        }),
      );
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'echo', arguments: { text: `n${i}` } });
      await client.getPrompt({ name: 'review', arguments: { diff: 'd' } });
      await client.ping();
      await client.listTools();
      await client.close();
      // The process records its close after the client has gone: wait for it.
      let all: Json[] = [];
      for (let i = 0; i < 200; i++) {
        all = records([join(dir, 'audit.jsonl')]);
        if (all.at(-1)?.type === 'close') break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const requests = all.filter((r) => r.type === 'request');
      assert.deepEqual(
        requests.map((r) => [r.method, r.entry, r.outcome]),
        [
          ['initialize', undefined, 'ok'],
          ['tools/call', 'echo', 'ok'],
          ['tools/call', 'echo', 'ok'],
          ['tools/call', 'echo', 'ok'],
          ['ping', undefined, 'ok'],
          ['tools/list', undefined, 'ok'],
        ],
        'prompts/get is left out: `include` names what is audited',
      );
      assert.deepEqual(requests[0].caller, {});
      assert.equal(all.at(-1).type, 'close');
      const verified = audit([join(dir, 'audit.jsonl'), '--verify']);
      assert.equal(verified.status, 0, verified.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
