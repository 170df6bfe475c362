/**
 * `mcp-run validate` checks what a view names against the tool's output: a column that is not a
 * field of the rows is an error at its own key (with the near name), an action naming a tool the
 * manifest lacks too; where the output is not known (offline) the fields get a warning, not an error.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const manifest = (ui: string) => `server: { name: apps-validate, version: 1.0.0 }
sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
  sales:
    kind: sql
    source: mem
    sql: SELECT 'north' AS region, 10 AS total
    ui: ${ui}
`;

function validate(ui: string, ...flags: string[]) {
  const files = tempFiles({ 'mcp.yaml': manifest(ui) });
  try {
    return runCli(['validate', join(files.dir, 'mcp.yaml'), ...flags]);
  } finally {
    files.cleanup();
  }
}

test('a field the rows do not have is an error at its key, with the near name', () => {
  const run = validate('{ view: chart, x: regoin, y: total }');
  assert.equal(run.code, 1);
  assert.match(run.stderr, /mcp\.yaml:9:\d+ tools\.sales\.ui\.x\n/);
  assert.match(run.stderr, /a field of the tool's rows \(region, total\), not "regoin"/);
  assert.match(run.stderr, /did you mean "region"\?/);
  assert.equal(validate('{ view: chart, x: region, y: total }').code, 0);
});

test("an action's row field and its tool are checked", () => {
  const run = validate(
    '{ view: table, actions: [{ tool: nope, label: Go, arguments: { r: "{{regio}}" } }] }',
  );
  assert.equal(run.code, 1);
  assert.match(run.stderr, /tools\.sales\.ui\.actions\[0\]\.tool\n/);
  assert.match(run.stderr, /tools\.sales\.ui\.actions\[0\]\.arguments\.r\n/);
});

test('offline the output is not known: a warning, not an error', () => {
  const run = validate('{ view: chart, x: regoin, y: total }', '--offline');
  assert.equal(run.code, 0);
  assert.match(run.stderr, /warning\[ENTRY_WARNING\].*tools\.sales\.ui\n/);
  assert.match(run.stderr, /the fields this view names \(regoin, total\) are checked when the tool runs/);
});

test("lint's token estimate counts what the model reads: no view _meta, no app-only tool", () => {
  const files = tempFiles({
    'mcp.yaml': `${manifest('{ view: table }')}  helper:
    kind: sql
    source: mem
    description: Only the view calls it.
    sql: SELECT 1 AS one
    ui: { view: card, visibility: [app] }
`,
    'plain.yaml': manifest('table').replace('    ui: table\n', ''),
  });
  try {
    const withViews = runCli(['lint', '--json', join(files.dir, 'mcp.yaml')]);
    const without = runCli(['lint', '--json', join(files.dir, 'plain.yaml')]);
    const costs = (run: { stdout: string }) => JSON.parse(run.stdout).tokens;
    assert.deepEqual(costs(withViews), costs(without));
  } finally {
    files.cleanup();
  }
});
