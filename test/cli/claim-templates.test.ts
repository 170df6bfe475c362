/**
 * Claim-bound template variables from the command line: `mcp-run test` cases with `claims:` read a
 * `fromClaim` template as that caller (its own URI is read, another's is not found), `validate`
 * warns of a bound variable without server.auth, and a bound variable cannot offer completions.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const manifest = (auth: boolean, owner: string, extra = '') => `
server:
  name: notes
${auth ? '  auth: { issuer: "https://issuer.example.test" }\n' : ''}resources:
  notes:
    kind: text
    uri: "notes://{owner}/recent"
    text: "notes of {{owner}}"
    variables:
      owner: { fromClaim: email${extra} }
tests:
  - read: "notes://${owner}/recent"
    claims: { email: ada@example.test }
    expect: { text: notes of ada@example.test }
`;

const files = tempFiles({
  'own/mcp.yaml': manifest(true, 'ada%40example.test'),
  'other/mcp.yaml': manifest(true, 'bob%40example.test'),
  'noauth/mcp.yaml': manifest(false, 'ada%40example.test'),
  'complete/mcp.yaml': manifest(true, 'ada%40example.test', ', complete: [bob@example.test]'),
  'unbound-sql/mcp.yaml': `
server:
  name: notes
  auth: { issuer: "https://issuer.example.test" }
sources:
  db: { kind: sqlite, path: ":memory:" }
resources:
  notes:
    kind: sql
    source: db
    uri: "notes://{owner}/recent"
    sql: SELECT :owner AS o
    variables:
      owner: { fromClaim: email }
      team: { fromClaim: team }
`,
  'unbound/mcp.yaml': manifest(true, 'ada%40example.test').replace(
    '      owner: { fromClaim: email }',
    '      owner: { fromClaim: email }\n      team: { fromClaim: team }',
  ),
});
after(() => files.cleanup());

describe('fromClaim on template variables, from the CLI', () => {
  test("mcp-run test with claims: the caller's own URI is read", () => {
    const run = runCli(['test', join(files.dir, 'own/mcp.yaml')]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
  });

  test("another caller's URI is not found, and nothing of it is shown", () => {
    const run = runCli(['test', join(files.dir, 'other/mcp.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /not found/i);
    assert.doesNotMatch(run.stdout, /notes of bob/);
  });

  test('without server.auth: a warning that every read is refused', () => {
    const run = runCli(['validate', join(files.dir, 'noauth/mcp.yaml')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout + run.stderr,
      /variable "owner" comes from the caller's access token \(fromClaim\), but the manifest has no server\.auth/,
    );
  });

  test('a bound variable cannot list completions (they would be other callers’ values)', () => {
    const run = runCli(['validate', join(files.dir, 'complete/mcp.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /comes from the "email" claim: no client chooses it/);
  });

  test('a bound variable the uri does not have is an error, not a variable served unbound', () => {
    const run = runCli(['validate', join(files.dir, 'unbound/mcp.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /resources\.notes\.variables\.team\n.*"team" is not a variable of/);
    const sql = runCli(['validate', join(files.dir, 'unbound-sql/mcp.yaml')]);
    assert.equal(sql.code, 1, sql.stdout);
    assert.match(sql.stderr, /variable "team" comes from the "team" claim, but the uri has no \{team\}/);
  });
});
