/**
 * `mcp-run import openapi` on a GitHub-shaped document (generated: the real one is not in the
 * repository): a short API name with the `--name` hint, one separator in tool names, `--split`
 * into one included file per tag that validates as one manifest, and the warning with the ways out
 * when what is written is larger than the load limit.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { bigSpec } from '../openapi/big-spec.js';

const work = tempFiles({});
after(() => work.cleanup());
const env = { ...process.env, GITHUB_TOKEN: 'test-token' };

test('--split: one file per tag, included by the manifest, validated as one; short names', () => {
  const spec = join(work.dir, 'github.json');
  writeFileSync(spec, JSON.stringify(bigSpec({ operations: 120, tags: 5, issues: 20 })));
  const out = join(work.dir, 'split', 'github.yaml');
  const run = runCli(['import', 'openapi', spec, '--split', '-o', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^Wrote 120 tools to .*github\.yaml \(5 files included by .*github\.yaml\)\./);
  assert.match(
    run.stderr,
    /named the API "github" \(server github, source github, variables GITHUB_\*\); --name NAME picks another/,
  );

  const top = parse(readFileSync(out, 'utf8'));
  assert.equal(top.server.name, 'github');
  assert.match(top.sources.github.baseUrl, /^\$\{env:GITHUB_BASE_URL:-https:\/\/api\.github\.com\}$/);
  assert.equal(top.tools, undefined, 'the tools are in the included files');
  assert.equal(top.include.length, 5);
  assert.ok(top.include.includes('tools/issues.yaml'), top.include.join(', '));
  assert.ok(Object.keys(top.schemas).length > 0, 'the components, once, in the top file');
  const issues = parse(readFileSync(join(work.dir, 'split', 'tools', 'issues.yaml'), 'utf8'));
  const names = Object.keys(issues.tools);
  assert.equal(names.length, 20);
  for (const name of names) assert.match(name, /^[a-z0-9]+(_[a-z0-9]+)*$/, 'one separator: _');
  assert.deepEqual(readdirSync(join(work.dir, 'split', 'tools')).length, 5);

  const check = runCli(['validate', out], { env });
  assert.equal(check.code, 0, check.stderr);
  assert.match(check.stdout, /120 tools/);

  // An error in an included file is reported there.
  const file = join(work.dir, 'split', 'tools', 'issues.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('    kind: http\n', '    kind: htp\n'));
  const broken = runCli(['validate', out], { env });
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /MANIFEST_UNKNOWN_KIND\] .*tools\/issues\.yaml:\d+:\d+ /);

  // --split needs -o, and does not go with --merge.
  assert.equal(runCli(['import', 'openapi', spec, '--split']).code, 2);
  assert.equal(runCli(['import', 'openapi', spec, '--split', '--merge', '-o', out]).code, 2);
});

test('larger than the load limit: a warning naming the ways out, exit 1; components once fit', () => {
  const spec = join(work.dir, 'big.json');
  writeFileSync(spec, JSON.stringify(bigSpec({ operations: 220 })));
  const inline = join(work.dir, 'inline.yaml');
  const run = runCli(['import', 'openapi', spec, '--inline-schemas', '-o', inline]);
  assert.equal(run.code, 1, run.stderr);
  assert.ok(statSync(inline).size > 4 * 1024 * 1024);
  assert.match(run.stderr, /inline\.yaml is \d+\.\d MiB, larger than the 4 MiB mcp-run loads/);
  assert.match(run.stderr, /--tags/);
  assert.match(run.stderr, /--no-output-schema/);
  assert.match(run.stderr, /--split/);
  assert.doesNotMatch(run.stdout, /Next: mcp-run validate/);

  const shared = join(work.dir, 'shared.yaml');
  const ok = runCli(['import', 'openapi', spec, '-o', shared]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.doesNotMatch(ok.stderr, /larger than/);
  const none = join(work.dir, 'none.yaml');
  assert.equal(runCli(['import', 'openapi', spec, '--no-output-schema', '-o', none]).code, 0);
  const sizes = [inline, shared, none].map((f) => statSync(f).size);
  assert.ok(sizes[1]! * 4 < sizes[0]!, `components once: ${sizes.join(' > ')}`);
  assert.ok(sizes[2]! < sizes[1]!, `no output schemas: ${sizes.join(' > ')}`);
  assert.doesNotMatch(readFileSync(none, 'utf8'), /outputSchema|^schemas:/m);
});
