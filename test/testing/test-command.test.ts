/**
 * `mcp-run test` as a user runs it: the built CLI as a process, on real manifests and test files in
 * temp folders, and a real HTTP upstream on 127.0.0.1 to record from. Covers the recipes offline,
 * failures with their diffs and exit 1, snapshots written only with --update under CI, record/replay
 * with no secret kept, and the TAP and JUnit reports. The first run outside CI (a snapshot written, a
 * case needing --record) is first-run.test.ts's.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI, REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { send, startUpstream, type Upstream } from '../kinds/http/upstream.js';
import { recordRecipes } from './stand-ins.js';

/** The CLI, without blocking this process (an upstream here must answer it). */
function runAsync(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** As CI runs it (.ci/run): a missing snapshot or fixture fails, and nothing is written. */
const UNDER_CI = { ...process.env, CI: 'true' };

const PROMPT_MANIFEST = `prompts:
  greet:
    description: Greets someone.
    arguments:
      name: { description: Who, required: true }
    messages:
      - text: "Hello, {{name}}!"
`;

describe('mcp-run test', () => {
  test('runs every recipe offline: HTTP recipes replay their fixtures, database ones say why they skip', () => {
    // Base URLs that cannot answer: a request that left the tape would fail. Under CI, as .ci/run
    // runs it: every snapshot and fixture must be committed, and none is written into the checkout.
    const env = {
      ...UNDER_CI,
      ISSUES_API_URL: 'http://127.0.0.1:9',
      WEATHER_API_URL: 'http://127.0.0.1:9',
      GEOCODING_API_URL: 'http://127.0.0.1:9',
      PETSTORE_BASE_URL: 'http://127.0.0.1:9/api',
      MCP_RUN_RECIPE_POSTGRES_URL: '',
      MCP_RUN_RECIPE_MYSQL_URL: '',
      GIT_REPO: '',
    };
    const run = runCli(['test', join(REPO, 'recipes')], { env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    for (const recipe of [
      'rest-api',
      'weather',
      'petstore',
      'bookstore',
      'docs-folder',
      'git-tools',
      'confirm-delete',
    ]) {
      assert.match(run.stdout, new RegExp(`recipes/${recipe}/tests/\\S+\\.yaml\\n  ✓`));
    }
    assert.match(
      run.stdout,
      /postgres-explorer\/tests\/explorer\.yaml \(skipped: MCP_RUN_RECIPE_POSTGRES_URL is not set\)/,
    );
    assert.match(run.stdout, /git-tools\/tests\/history\.yaml \(skipped: GIT_REPO is not set\)/);
    assert.match(run.stdout, /\n\d+ passed, 0 failed, 8 skipped\n$/);
  });

  test('the committed fixtures are what the stand-ins answer, and hold no token', async () => {
    const copy = tempFiles({});
    try {
      for (const r of ['rest-api', 'weather', 'petstore']) {
        cpSync(join(REPO, 'recipes', r), join(copy.dir, r), { recursive: true });
      }
      const run = await recordRecipes(copy.dir);
      assert.equal(run.status, 0, run.stdout + run.stderr);
      for (const [r, f] of [
        ['rest-api', 'issues'],
        ['weather', 'weather'],
        ['petstore', 'pets'],
      ] as const) {
        const fresh = JSON.parse(readFileSync(join(copy.dir, r, 'tests', `${f}.http.json`), 'utf8'));
        const committed = JSON.parse(
          readFileSync(join(REPO, 'recipes', r, 'tests', `${f}.http.json`), 'utf8'),
        );
        assert.deepEqual(
          fresh,
          committed,
          `${r}: re-record with node --import tsx test/testing/stand-ins.ts`,
        );
      }
      const rest = readFileSync(join(copy.dir, 'rest-api/tests/issues.http.json'), 'utf8');
      assert.ok(!rest.includes('ghp_recipeTestToken'), 'the token was recorded');
      assert.ok(!/authorization/i.test(rest), 'a request header was recorded');
    } finally {
      copy.cleanup();
    }
  });

  test('a failing expectation prints the diff and exits 1', () => {
    const t = tempFiles({
      'mcp.yaml': PROMPT_MANIFEST,
      'tests/greet.yaml': `tests:
  - name: greets by name
    prompt: greet
    args: { name: Ada }
    expect:
      text: "[user]\\nHello, Grace!"
  - name: still contains the greeting
    prompt: greet
    args: { name: Ada }
    expect:
      contains: Hello, Ada
`,
    });
    try {
      const run = runCli(['test', join(t.dir, 'mcp.yaml')]);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /✗ greets by name/);
      assert.match(
        run.stdout,
        /text is not what was expected:\n\s+--- expected\n\s+\+\+\+ actual\n\s+\[user\]\n\s+- Hello, Grace!\n\s+\+ Hello, Ada!/,
      );
      assert.match(run.stdout, /✓ still contains the greeting/);
      assert.match(run.stdout, /1 passed, 1 failed, 0 skipped\n$/);
    } finally {
      t.cleanup();
    }
  });

  test('structured subsets, isError and row counts fail with the path that differs', () => {
    const t = tempFiles({
      'mcp.yaml': `sources:
  db: { kind: sqlite, path: ":memory:" }
tools:
  numbers:
    kind: sql
    source: db
    sql: "SELECT 1 AS n, 'one' AS word UNION ALL SELECT 2, 'two'"
`,
      'tests/numbers.yaml': `tests:
  - name: wrong word
    call: numbers
    expect: { structured: { rows: [{ n: 1, word: one }, { n: 2, word: three }] } }
  - name: wrong count
    call: numbers
    expect: { rows: 3 }
  - name: expects an error
    call: numbers
    expect: { isError: true }
  - name: right
    call: numbers
    expect: { rows: 2, isError: false, structured: { rows: [{ n: 1 }, { word: two }] } }
`,
    });
    try {
      const run = runCli(['test', t.dir]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout, /structuredContent\.rows\[1\]\.word: expected "three", got "two"/);
      assert.match(run.stdout, /rows: expected 3, got 2/);
      assert.match(run.stdout, /isError: expected true, got false/);
      assert.match(run.stdout, /✓ right/);
      assert.match(run.stdout, /1 passed, 3 failed, 0 skipped/);
    } finally {
      t.cleanup();
    }
  });

  test('under CI, snapshots are written only with --update, beside the test file, and a change is a diff', () => {
    const t = tempFiles({
      'mcp.yaml': PROMPT_MANIFEST,
      'tests/snap.yaml':
        'tests:\n  - { name: greeting, prompt: greet, args: { name: Ada }, expect: { snapshot: true } }\n',
    });
    const snap = join(t.dir, 'tests/snap.snap.json');
    try {
      const missing = runCli(['test', t.dir], { env: UNDER_CI });
      assert.equal(missing.code, 1);
      assert.match(
        missing.stdout,
        /no snapshot stored for "greeting" in snap\.snap\.json: run with --update/,
      );
      assert.equal(existsSync(snap), false, 'a snapshot was written without --update');

      const update = runCli(['test', t.dir, '--update'], { env: UNDER_CI });
      assert.equal(update.code, 0, update.stdout);
      assert.match(update.stdout, /wrote tests\/snap\.snap\.json|wrote .*snap\.snap\.json/);
      assert.match(readFileSync(snap, 'utf8'), /Hello, Ada!/);
      assert.equal(runCli(['test', t.dir], { env: UNDER_CI }).code, 0);

      writeFileSync(join(t.dir, 'mcp.yaml'), PROMPT_MANIFEST.replace('Hello', 'Goodbye'));
      const before = readFileSync(snap, 'utf8');
      const changed = runCli(['test', t.dir], { env: UNDER_CI });
      assert.equal(changed.code, 1);
      assert.match(changed.stdout, /differs from its snapshot \(run with --update to accept it\)/);
      assert.match(changed.stdout, /- .*Hello, Ada!/);
      assert.match(changed.stdout, /\+ .*Goodbye, Ada!/);
      assert.equal(readFileSync(snap, 'utf8'), before, 'the snapshot changed without --update');
    } finally {
      t.cleanup();
    }
  });

  describe('HTTP record and replay', () => {
    let upstream: Upstream;
    const TOKEN = 'sk-live-0123456789abcdef';
    const KEY = 'key-9876543210';
    before(async () => {
      upstream = await startUpstream(() => (seen, res) => {
        const url = new URL(seen.url, 'http://x');
        if (seen.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { message: 'no' });
        if (url.searchParams.get('api_key') !== null) return send(res, 400, { message: 'unexpected' });
        send(res, 200, {
          path: url.pathname,
          echo: `token ${TOKEN} seen`,
          n: Number(url.searchParams.get('n')),
        });
      });
    });
    after(async () => {
      await upstream.close();
    });

    const manifest = `sources:
  api:
    kind: http
    baseUrl: \${env:API_URL}/v2
    auth: { bearer: "\${env:API_TOKEN}" }
    headers: { X-Key: "\${env:API_KEY}" }
tools:
  item:
    kind: http
    source: api
    path: /items/{id}
    input:
      id: { type: integer }
      n: { type: integer }
`;
    const cases = `env: { API_URL: "http://127.0.0.1:9", API_TOKEN: placeholder-token, API_KEY: placeholder-key }
tests:
  - name: one item
    call: item
    args: { id: 7, n: 3 }
    expect: { structured: { path: /v2/items/7, n: 3 } }
`;

    test('records from the source origin without secrets, then replays offline; an unrecorded request fails', async () => {
      const t = tempFiles({ 'mcp.yaml': manifest, 'tests/api.yaml': cases });
      const fixture = join(t.dir, 'tests/api.http.json');
      try {
        const offline = await runAsync(['test', t.dir], UNDER_CI);
        assert.equal(offline.code, 1);
        assert.match(offline.stdout, /api\.http\.json does not exist: record it with --record/);

        const env = { ...process.env, API_URL: upstream.origin, API_TOKEN: TOKEN, API_KEY: KEY };
        const record = await runAsync(['test', t.dir, '--record'], env);
        assert.equal(record.code, 0, record.stdout + record.stderr);
        assert.equal(upstream.seen.length, 1);
        assert.equal(upstream.seen[0]!.url, '/v2/items/7?n=3');
        const text = readFileSync(fixture, 'utf8');
        assert.ok(!text.includes(TOKEN), `the token was recorded: ${text}`);
        assert.ok(!text.includes(KEY), `the key was recorded: ${text}`);
        assert.match(text, /token \*\*\* seen/);
        assert.ok(!text.includes(upstream.origin.replace('http://', '')), 'the origin was recorded');

        // Replayed: with the test file's placeholders, and nothing reaches the upstream.
        const replay = await runAsync(['test', t.dir]);
        assert.equal(replay.code, 0, replay.stdout + replay.stderr);
        assert.equal(upstream.seen.length, 1);

        writeFileSync(join(t.dir, 'tests/api.yaml'), cases.replace('id: 7', 'id: 8'));
        const miss = await runAsync(['test', t.dir]);
        assert.equal(miss.code, 1);
        assert.match(
          miss.stdout,
          /no recorded HTTP answer for api GET \/v2\/items\/8\?n=3 \(record with --record\)/,
        );
        assert.equal(upstream.seen.length, 1);
      } finally {
        t.cleanup();
      }
    });
  });

  test('credentials written in the manifest, and query parameters named like one, are not recorded', async () => {
    const keyed = await startUpstream(() => (seen, res) => {
      const q = new URL(seen.url, 'http://x').searchParams;
      if (q.get('api_key') !== 'literal-key-4242') return send(res, 401, { message: 'no key' });
      send(res, 200, { ok: true, token: q.get('access_token') });
    });
    const t = tempFiles({
      'mcp.yaml': `sources:
  api:
    kind: http
    baseUrl: \${env:API_URL}
    auth: { apiKey: { query: api_key, value: literal-key-4242 } }
tools:
  ping:
    kind: http
    source: api
    path: /ping
    query: { access_token: "{{t}}" }
    input: { t: { type: string } }
`,
      'tests/ping.yaml': `env: { API_URL: "http://127.0.0.1:9" }
tests:
  - { name: ping, call: ping, args: { t: arg-token-777 }, expect: { structured: { ok: true } } }
`,
    });
    try {
      const record = await runAsync(['test', t.dir, '--record'], { ...process.env, API_URL: keyed.origin });
      assert.equal(record.code, 0, record.stdout + record.stderr);
      const text = readFileSync(join(t.dir, 'tests/ping.http.json'), 'utf8');
      assert.ok(!text.includes('literal-key-4242'), `the manifest's key was recorded: ${text}`);
      assert.ok(!/"path": "[^"]*arg-token-777/.test(text), `a token parameter was recorded: ${text}`);
      assert.match(text, /"path": "\/ping\?access_token=\*\*\*&api_key=\*\*\*"/);
      const replay = await runAsync(['test', t.dir]);
      assert.equal(replay.code, 0, replay.stdout + replay.stderr);
    } finally {
      t.cleanup();
      await keyed.close();
    }
  });

  test('TAP and JUnit reports for CI, to stdout or a file', () => {
    const t = tempFiles({
      'mcp.yaml': PROMPT_MANIFEST,
      'tests/r.yaml': `tests:
  - { name: passes, prompt: greet, args: { name: Ada }, expect: { contains: Ada } }
  - { name: "fails <&>", prompt: greet, args: { name: Ada }, expect: { contains: Grace } }
`,
    });
    try {
      const tap = runCli(['test', t.dir, '--reporter', 'tap']);
      assert.equal(tap.code, 1);
      assert.match(
        tap.stdout,
        /^TAP version 13\n1\.\.2\nok 1 - .*r\.yaml > passes\nnot ok 2 - .*r\.yaml > fails <&>\n {2}---\n {2}message: \|\n {4}text does not contain "Grace"/,
      );
      assert.match(tap.stdout, /# pass 1\n# fail 1\n# skip 0\n$/);

      const out = join(t.dir, 'junit.xml');
      const junit = runCli(['test', t.dir, '--reporter', 'junit', '-o', out]);
      assert.equal(junit.code, 1);
      assert.match(junit.stdout, /✗ fails <&>/);
      const xml = readFileSync(out, 'utf8');
      assert.match(xml, /<testsuites name="mcp-run test" tests="2" failures="1" skipped="0">/);
      assert.match(xml, /<testcase classname="[^"]*r\.yaml" name="passes" time="[\d.]+"\/>/);
      assert.match(
        xml,
        /name="fails &lt;&amp;&gt;"[^>]*>\n\s+<failure message="text does not contain &quot;Grace&quot;; it is:">/,
      );
    } finally {
      t.cleanup();
    }
  });

  test('a test file with a mistake is bad usage (exit 2), named with its place', () => {
    const t = tempFiles({
      'mcp.yaml': PROMPT_MANIFEST,
      'tests/bad.yaml': 'tests:\n  - { prompt: greet, expect: { contians: x } }\n',
    });
    try {
      const run = runCli(['test', t.dir]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /bad\.yaml: tests\[0\]\.expect\.contians: unknown expectation/);
    } finally {
      t.cleanup();
    }
  });

  test('cases in the manifest itself: validated with it, run with the tests/ files, snapshots beside it', () => {
    const t = tempFiles({
      'mcp.yaml': `${PROMPT_MANIFEST}tests:
  - name: greets Ada
    prompt: greet
    args: { name: Ada }
    expect: { contains: "Hello, Ada!" }
  - name: greets Grace
    prompt: greet
    args: { name: Grace }
    expect: { text: "[user]\\nHello, Ada!", snapshot: true }
`,
      'tests/more.yaml': 'tests:\n  - { prompt: greet, args: { name: Lin }, expect: { contains: Lin } }\n',
    });
    try {
      assert.equal(runCli(['validate', join(t.dir, 'mcp.yaml')]).code, 0);
      const run = runCli(['test', t.dir]);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /✓ greets Ada/);
      assert.match(run.stdout, /✗ greets Grace/);
      assert.match(run.stdout, /- Hello, Ada!\n\s+\+ Hello, Grace!/);
      assert.match(run.stdout, /no snapshot stored for "greets Grace" in mcp\.snap\.json/);
      assert.match(run.stdout, /✓ prompt greet/);
      assert.match(run.stdout, /2 passed, 1 failed, 0 skipped\n$/);
      // The section is checked like the rest of the manifest: a misspelt expectation is an error.
      writeFileSync(
        join(t.dir, 'mcp.yaml'),
        `${PROMPT_MANIFEST}tests:\n  - { prompt: greet, expect: { contians: x } }\n`,
      );
      const bad = runCli(['validate', join(t.dir, 'mcp.yaml')]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /contians/);
      const usage = runCli(['test', t.dir]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /mcp\.yaml: tests\[0\]\.expect\.contians: unknown expectation/);
    } finally {
      t.cleanup();
    }
  });
});
