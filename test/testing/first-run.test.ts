/**
 * `mcp-run test` on its first honest run, as a new user meets it: the built CLI as a process, a
 * recipe written by `mcp-run init`, a real HTTP upstream on 127.0.0.1 (or a port nothing answers).
 * A case whose HTTP requests have no fixture yet needs --record (not a failure) and leaves every
 * other case to run; a snapshot is written on the first run and compared afterwards. Under CI (the
 * `CI` variable, as Jest reads it) both are failures, each with a message that says how to fix it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCli, runCliAsync } from '../helpers/run-cli.js';
import { send, startUpstream, type Upstream } from '../kinds/http/upstream.js';

/** The environment of a person's terminal, and of a CI job: only `CI` differs. */
const { CI: _ci, ...LOCAL } = process.env;
const UNDER_CI = { ...LOCAL, CI: 'true' };

/** Adds an http source at `baseUrl`, one tool on it, and one case calling that tool. */
function addHttpTool(dir: string, baseUrl: string): void {
  const manifest = join(dir, 'mcp.yaml');
  writeFileSync(
    manifest,
    readFileSync(manifest, 'utf8').replace(
      '\ntools:\n',
      `\n  catalog_api:\n    kind: http\n    baseUrl: ${baseUrl}\n\ntools:\n  lookup_isbn:\n    kind: http\n    source: catalog_api\n    description: A book's catalogue record, from the publisher's API.\n    path: /books/{isbn}\n    input:\n      isbn: { type: string }\n\n`,
    ),
  );
  const tests = join(dir, 'tests/bookstore.yaml');
  writeFileSync(
    tests,
    `${readFileSync(tests, 'utf8')}  - name: looks a book up upstream\n    call: lookup_isbn\n    args: { isbn: 978-0-00 }\n    expect:\n      contains: The Moomins\n`,
  );
}

describe('mcp-run test on a first run', () => {
  let upstream: Upstream;
  before(async () => {
    upstream = await startUpstream(
      () => (seen, res) => send(res, 200, { isbn: seen.url, title: 'The Moomins' }),
    );
  });
  after(async () => {
    await upstream.close();
  });

  test('init --recipe bookstore plus one HTTP tool and case, no fixture: every other case passes, that one needs --record; under CI it fails', async () => {
    const t = tempFiles({});
    try {
      assert.equal(runCli(['init', '--recipe', 'bookstore', '--dir', t.dir]).code, 0);
      addHttpTool(t.dir, `${upstream.origin}/v1`);
      const fixture = join(t.dir, 'tests/bookstore.http.json');

      const first = await runCliAsync(['test'], { cwd: t.dir, env: LOCAL });
      assert.equal(first.code, 0, first.stdout + first.stderr);
      for (const name of [
        'finds books by author',
        'best sellers, best first',
        'the query tool refuses writes',
        'one book as a resource',
        'the restock prompt',
      ])
        assert.match(first.stdout, new RegExp(`✓ ${name} \\(`));
      assert.match(first.stdout, /○ looks a book up upstream \(\d+ ms\): needs --record\n/);
      assert.match(
        first.stdout,
        /catalog_api GET \/v1\/books\/978-0-00 has no recorded answer: .*bookstore\.http\.json does not exist yet\n\s+record it with `mcp-run test --record`/,
      );
      assert.match(first.stdout, /\n10 passed, 0 failed, 0 skipped, 1 needs --record\n$/);
      assert.equal(upstream.seen.length, 0, 'a request left the machine without --live or --record');
      assert.equal(existsSync(fixture), false);

      const ci = await runCliAsync(['test'], { cwd: t.dir, env: UNDER_CI });
      assert.equal(ci.code, 1, ci.stdout + ci.stderr);
      assert.match(ci.stdout, /✗ looks a book up upstream \(/);
      assert.match(
        ci.stdout,
        /catalog_api GET \/v1\/books\/978-0-00 has no recorded answer: .*bookstore\.http\.json does not exist: record it with --record where the upstream is reachable, and commit it \(under CI a missing fixture fails\)/,
      );
      assert.match(ci.stdout, /\n10 passed, 1 failed, 0 skipped\n$/);
      assert.equal(upstream.seen.length, 0);

      // --live: the author allows the real upstream; the case runs and nothing is written.
      const live = await runCliAsync(['test', '--live'], { cwd: t.dir, env: LOCAL });
      assert.equal(live.code, 0, live.stdout + live.stderr);
      assert.match(live.stdout, /✓ looks a book up upstream \(/);
      assert.match(live.stdout, /\n11 passed, 0 failed, 0 skipped\n$/);
      assert.equal(upstream.seen.length, 1);
      assert.equal(upstream.seen[0]!.url, '/v1/books/978-0-00');
      assert.equal(existsSync(fixture), false, '--live wrote a fixture');

      // Recorded once, it replays offline from then on, under CI too.
      const record = await runCliAsync(['test', '--record'], { cwd: t.dir, env: LOCAL });
      assert.equal(record.code, 0, record.stdout + record.stderr);
      assert.ok(existsSync(fixture));
      const replay = await runCliAsync(['test'], { cwd: t.dir, env: UNDER_CI });
      assert.equal(replay.code, 0, replay.stdout + replay.stderr);
      assert.match(replay.stdout, /\n11 passed, 0 failed, 0 skipped\n$/);
      assert.equal(upstream.seen.length, 2);
    } finally {
      t.cleanup();
    }
  });

  test('an upstream that does not answer: --live leaves the case needing --record, the others pass', async () => {
    const t = tempFiles({});
    try {
      assert.equal(runCli(['init', '--recipe', 'bookstore', '--dir', t.dir]).code, 0);
      // An upstream that was there and is gone: nothing listens on its port any more.
      const gone = await startUpstream();
      await gone.close();
      addHttpTool(t.dir, `${gone.origin}/v1`);
      const run = await runCliAsync(['test', '--live'], { cwd: t.dir, env: LOCAL });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /○ looks a book up upstream \(\d+ ms\): needs --record\n/);
      assert.match(
        run.stdout,
        /catalog_api GET \/v1\/books\/978-0-00: the upstream did not answer \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/,
      );
      assert.match(run.stdout, /\n10 passed, 0 failed, 0 skipped, 1 needs --record\n$/);

      const ci = await runCliAsync(['test', '--live'], { cwd: t.dir, env: UNDER_CI });
      assert.equal(ci.code, 1, ci.stdout + ci.stderr);
      assert.match(ci.stdout, /✗ looks a book up upstream \(/);
      assert.match(ci.stdout, /the upstream did not answer .*under CI/);
      assert.match(ci.stdout, /\n10 passed, 1 failed, 0 skipped\n$/);
    } finally {
      t.cleanup();
    }
  });

  const GREET = `prompts:
  greet:
    arguments: { name: { description: Who, required: true } }
    messages: [{ text: "Hello, {{name}}!" }]
`;
  const SNAP_CASE =
    'tests:\n  - { name: greeting, prompt: greet, args: { name: Ada }, expect: { snapshot: true } }\n';

  test('a snapshot is written on the first run, compared on the next, and a changed result fails', () => {
    const t = tempFiles({ 'mcp.yaml': GREET, 'tests/snap.yaml': SNAP_CASE });
    const snap = join(t.dir, 'tests/snap.snap.json');
    try {
      const first = runCli(['test', t.dir], { env: LOCAL });
      assert.equal(first.code, 0, first.stdout + first.stderr);
      assert.match(first.stdout, /✓ greeting \(\d+ ms\): snapshot written\n/);
      assert.match(first.stdout, /\n1 passed, 0 failed, 0 skipped, 1 snapshot written\n$/);
      const written = readFileSync(snap, 'utf8');
      assert.match(written, /Hello, Ada!/);

      const second = runCli(['test', t.dir], { env: LOCAL });
      assert.equal(second.code, 0, second.stdout);
      assert.match(second.stdout, /✓ greeting \(\d+ ms\)\n/);
      assert.match(second.stdout, /\n1 passed, 0 failed, 0 skipped\n$/);

      writeFileSync(join(t.dir, 'mcp.yaml'), GREET.replace('Hello', 'Goodbye'));
      const changed = runCli(['test', t.dir], { env: LOCAL });
      assert.equal(changed.code, 1);
      assert.match(changed.stdout, /differs from its snapshot \(run with --update to accept it\)/);
      assert.match(changed.stdout, /- .*Hello, Ada!/);
      assert.match(changed.stdout, /\+ .*Goodbye, Ada!/);
      assert.equal(readFileSync(snap, 'utf8'), written, 'a differing snapshot was overwritten');
    } finally {
      t.cleanup();
    }
  });

  test('a case that fails otherwise does not write its snapshot', () => {
    const t = tempFiles({
      'mcp.yaml': GREET,
      'tests/snap.yaml':
        'tests:\n  - { name: greeting, prompt: greet, args: { name: Ada }, expect: { contains: Grace, snapshot: true } }\n',
    });
    try {
      const run = runCli(['test', t.dir], { env: LOCAL });
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /no snapshot stored for "greeting" in snap\.snap\.json: it is written on the first run where the case's other expectations pass/,
      );
      assert.equal(existsSync(join(t.dir, 'tests/snap.snap.json')), false);
    } finally {
      t.cleanup();
    }
  });

  test('under CI a missing snapshot fails and nothing is written', () => {
    const t = tempFiles({ 'mcp.yaml': GREET, 'tests/snap.yaml': SNAP_CASE });
    try {
      const run = runCli(['test', t.dir], { env: UNDER_CI });
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /✗ greeting[^\n]*\n\s+no snapshot stored for "greeting" in snap\.snap\.json: run with --update to write it, and commit it \(under CI a missing snapshot fails instead of being written\)/,
      );
      assert.match(run.stdout, /\n0 passed, 1 failed, 0 skipped\n$/);
      assert.equal(existsSync(join(t.dir, 'tests/snap.snap.json')), false);
      // CI=false is not CI, as for Jest.
      const local = runCli(['test', t.dir], { env: { ...LOCAL, CI: 'false' } });
      assert.equal(local.code, 0, local.stdout);
      assert.match(local.stdout, /snapshot written/);
    } finally {
      t.cleanup();
    }
  });

  test('TAP and JUnit show "needs --record" as a skip with its reason, and "snapshot written"', () => {
    const t = tempFiles({
      'mcp.yaml': `${GREET}sources:
  api: { kind: http, baseUrl: "http://127.0.0.1:9" }
tools:
  ping: { kind: http, source: api, path: /ping }
`,
      'tests/r.yaml': `tests:
  - { name: greeting, prompt: greet, args: { name: Ada }, expect: { snapshot: true } }
  - { name: ping, call: ping, expect: { contains: pong } }
`,
    });
    try {
      const tap = runCli(['test', t.dir, '--reporter', 'tap'], { env: LOCAL });
      assert.equal(tap.code, 0, tap.stdout + tap.stderr);
      assert.match(tap.stdout, /\nok 1 - \S*r\.yaml > greeting\n# snapshot written to \S*r\.snap\.json\n/);
      assert.match(
        tap.stdout,
        /\nok 2 - \S*r\.yaml > ping # SKIP needs --record: api GET \/ping has no recorded answer/,
      );
      assert.match(tap.stdout, /# pass 1\n# fail 0\n# skip 0\n# needs --record 1\n$/);
      assert.match(tap.stderr, /1 passed, 0 failed, 0 skipped, 1 needs --record, 1 snapshot written/);

      rmSync(join(t.dir, 'tests/r.snap.json'));
      const out = join(t.dir, 'junit.xml');
      const junit = runCli(['test', t.dir, '--reporter', 'junit', '-o', out], { env: LOCAL });
      assert.equal(junit.code, 0, junit.stdout + junit.stderr);
      const xml = readFileSync(out, 'utf8');
      assert.match(xml, /<testsuites name="mcp-run test" tests="2" failures="0" skipped="1">/);
      assert.match(
        xml,
        /name="greeting"[^>]*>\n\s+<system-out>snapshot written to \S*r\.snap\.json<\/system-out>\n\s+<\/testcase>/,
      );
      assert.match(
        xml,
        /name="ping"[^>]*>\n\s+<skipped message="needs --record: api GET \/ping has no recorded answer/,
      );
    } finally {
      t.cleanup();
    }
  });
});
