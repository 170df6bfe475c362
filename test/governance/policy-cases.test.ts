/**
 * `mcp-run test` cases under claims: `expect.denied` passes when the named policy refuses and fails
 * otherwise; masked output is checked like any output. The cases also run as a client of a toolset,
 * whose own policy applies to what it serves and whose name is `toolset` in an expression. Through
 * the real protocol core in-process (the test runner), on a real SQLite file.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadTestFile } from '../../src/testing/cases.js';
import { runTestFile } from '../../src/testing/runner.js';

const MANIFEST = `
server:
  name: cases
  policies:
    staff-only:
      allow: '"staff" in claims.roles'
    hide-salary:
      output:
        - unless: '"hr" in claims.roles'
          columns: [salary]
sources:
  db: { kind: sqlite, path: ./people.db, seed: ./seed.sql }
tools:
  people:
    kind: sql
    source: db
    sql: SELECT name, salary FROM people ORDER BY name
    policy: [staff-only, hide-salary]
  where_am_i:
    kind: content
    content: [{ text: here }]
    policy:
      allow: toolset == "" || toolset == "ops"
toolsets:
  ops:
    tools: [people, where_am_i]
    policy:
      deny: '"contractor" in claims.roles'
  other:
    tools: [where_am_i]
tests:
  - name: a guest is refused by staff-only
    call: people
    claims: { sub: g, roles: [guest] }
    expect: { denied: staff-only }
  - name: staff see salaries masked
    call: people
    claims: { sub: s, roles: [staff] }
    expect:
      structured: { rows: [{ name: Ada, salary: null }, { name: Bob, salary: null }] }
      text: "| name | salary |\\n| --- | --- |\\n| Ada | *** |\\n| Bob | *** |\\n\\n2 rows."
  - name: hr see salaries
    call: people
    claims: { sub: h, roles: [staff, hr] }
    expect: { structured: { rows: [{ name: Ada, salary: 5000 }, { name: Bob, salary: 7000 }] }, contains: "| Ada | 5000 |" }
  - name: wrongly expected refusal
    call: people
    claims: { sub: h, roles: [staff, hr] }
    expect: { denied: staff-only }
  - name: wrong policy expected
    call: people
    claims: { sub: g, roles: [guest] }
    expect: { denied: hide-salary }
  - name: a staff contractor
    call: people
    claims: { sub: c, roles: [staff, contractor] }
    expect: { rows: 2 }
`;

describe('mcp-run test: cases that assert allow, deny and masked output under claims', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-policy-cases-'));
    await writeFile(
      join(dir, 'seed.sql'),
      "CREATE TABLE people (name TEXT, salary INTEGER); INSERT INTO people VALUES ('Ada', 5000), ('Bob', 7000);\n",
    );
    await writeFile(join(dir, 'mcp.yaml'), MANIFEST);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const statuses = async (toolsets?: string[]) => {
    const result = await runTestFile(await loadTestFile(join(dir, 'mcp.yaml')), {
      ...(toolsets && { toolsets }),
    });
    assert.equal(result.error, undefined);
    return Object.fromEntries(result.cases.map((c) => [c.name, [c.status, ...c.messages]]));
  };

  it('passes the right expectations and fails the wrong ones, saying why', async () => {
    const got = await statuses();
    assert.deepEqual(got['a guest is refused by staff-only'], ['pass']);
    assert.deepEqual(got['staff see salaries masked'], ['pass']);
    assert.deepEqual(got['hr see salaries'], ['pass']);
    assert.deepEqual(got['wrongly expected refusal'], [
      'fail',
      'denied: expected the policy "staff-only" to refuse it, but it was allowed',
    ]);
    assert.deepEqual(got['wrong policy expected'], [
      'fail',
      'denied: expected the policy "hide-salary" to refuse it, but "staff-only" did',
    ]);
    assert.deepEqual(got['a staff contractor'], ['pass']);
  });

  it("applies a toolset's policy to what it serves", async () => {
    const got = await statuses(['ops']);
    assert.deepEqual(got['a staff contractor'], [
      'fail',
      'the request failed: The policy "toolsets.ops" does not allow this tool for this caller. (-32040)',
    ]);
    assert.deepEqual(got['staff see salaries masked'], ['pass']);
  });
});

describe('`toolset` in an expression', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-policy-toolset-'));
    await writeFile(join(dir, 'seed.sql'), 'CREATE TABLE people (name TEXT, salary INTEGER);\n');
    const cases = `
tests:
  - name: where
    call: where_am_i
    claims: { sub: s, roles: [staff] }
    expect: { text: here }
`;
    await writeFile(join(dir, 'mcp.yaml'), MANIFEST.replace(/\ntests:[\s\S]*$/, cases));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('is the toolset the entry is served through, "" on the whole catalog', async () => {
    const run = async (toolsets?: string[]) =>
      (await runTestFile(await loadTestFile(join(dir, 'mcp.yaml')), { ...(toolsets && { toolsets }) }))
        .cases[0];
    assert.deepEqual((await run())?.messages, []);
    assert.deepEqual((await run(['ops']))?.messages, []);
    assert.deepEqual((await run(['other']))?.messages, [
      'the request failed: The policy "tools.where_am_i" does not allow this tool for this caller. (-32040)',
    ]);
  });
});
