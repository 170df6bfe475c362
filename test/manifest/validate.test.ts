import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDiagnostic } from '../../src/errors.js';
import { brief, failures, load, yaml } from './helpers.js';

describe('validate: envelope', () => {
  it('rejects an unknown top-level key with a suggestion', () => {
    const [d, ...rest] = failures(yaml('server: { name: x }', 'tool:', '  a: { kind: sql }'));
    assert.equal(rest.length, 0);
    assert.deepEqual(brief([d!]), ['MANIFEST_UNKNOWN_FIELD 2:1 tool']);
    assert.equal(d!.message, 'unknown field "tool" in the manifest (did you mean "tools"?)');
    assert.equal(
      d!.hint,
      'allowed fields: server, include, schemas, reload, sources, tools, resources, prompts, toolsets, skills, tests',
    );
  });

  it('checks the server section: its fields and pageSize bounds', () => {
    const ds = failures(yaml('server: { name: x, pageSize: 0, versio: "1" }'));
    assert.deepEqual(brief(ds), [
      'MANIFEST_INVALID_VALUE 1:30 server.pageSize',
      'MANIFEST_UNKNOWN_FIELD 1:33 server.versio',
    ]);
    assert.equal(ds[0]!.message, 'expected at least 1, got 0');
    assert.equal(ds[1]!.message, 'unknown field "versio" in server (did you mean "version"?)');
  });

  it('rejects invalid names, pointing at the name', () => {
    const ds = failures(
      yaml(
        'sources:',
        '  "my db": { kind: sqlite, path: x }',
        `  ${'s'.repeat(65)}: { kind: sqlite, path: x }`,
      ),
    );
    assert.deepEqual(brief(ds), [
      'MANIFEST_INVALID_NAME 2:3 sources["my db"]',
      `MANIFEST_INVALID_NAME 3:3 sources.${'s'.repeat(65)}`,
    ]);
    assert.equal(ds[0]!.message, 'invalid source name "my db": names must match ^[A-Za-z0-9_.-]{1,64}$');
  });

  it('allows tool names up to 128 characters, with dots and dashes', () => {
    const name = `a.b-${'c'.repeat(124)}`;
    const m = load(yaml('tools:', `  ${name}: { kind: sql, source: s, sql: x }`));
    assert.ok(m.data.tools?.[name]);
  });

  it('requires a kind, listing the known kinds', () => {
    const ds = failures(yaml('tools:', '  a:', '    source: s'));
    assert.deepEqual(brief(ds), ['MANIFEST_MISSING_FIELD 2:3 tools.a']);
    assert.equal(ds[0]!.message, 'tool "a" is missing the required field "kind"');
    assert.equal(ds[0]!.hint, 'add `kind:` with one of: http, shell, sql');
  });

  it('requires entries to be mappings', () => {
    const ds = failures(yaml('tools:', '  a: hello', '  b:'));
    assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 2:6 tools.a', 'MANIFEST_INVALID_VALUE 3:3 tools.b']);
    assert.equal(ds[0]!.message, 'expected a mapping, got a string ("hello")');
    assert.equal(ds[1]!.message, 'expected a mapping, got an empty value');
  });

  it('allows an empty section and drops it from the data', () => {
    assert.deepEqual(load(yaml('tools:', 'server: { name: x }')).data, { server: { name: 'x' } });
  });

  it('fills in the default prompt kind', () => {
    const m = load(yaml('prompts:', '  hello:', '    messages: [{ role: user, text: hi }]'));
    assert.equal(m.data.prompts?.hello?.kind, 'template');
  });
});

describe('validate: kinds', () => {
  it('reports an unknown kind once, at the kind, with a suggestion (the STYLE example)', () => {
    const ds = failures(
      yaml('server: { name: x }', 'tools:', '  get_issue:', '    kind: htp', '    method: GET'),
    );
    assert.equal(ds.length, 1);
    assert.equal(
      formatDiagnostic(ds[0]!),
      [
        'error[MANIFEST_UNKNOWN_KIND] mcp.yaml:4:11 tools.get_issue.kind',
        '  unknown tool kind "htp"; known kinds: http, shell, sql (did you mean "http"?)',
        '      2 | tools:',
        '      3 |   get_issue:',
        '    > 4 |     kind: htp',
        '        |           ^',
      ].join('\n'),
    );
  });

  it('reports a missing required field at the entry key', () => {
    const ds = failures(yaml('tools:', '  find_orders:', '    kind: sql', '    source: shop'));
    assert.deepEqual(brief(ds), ['MANIFEST_MISSING_FIELD 2:3 tools.find_orders']);
    assert.equal(ds[0]!.message, 'tool "find_orders" is missing the required field "sql"');
  });

  it('reports an unknown field at its key with a suggestion, not also the field it misspells', () => {
    const ds = failures(
      yaml('tools:', '  find_orders:', '    kind: sql', '    source: shop', '    sqll: SELECT 1'),
    );
    assert.deepEqual(brief(ds), ['MANIFEST_UNKNOWN_FIELD 5:5 tools.find_orders.sqll']);
    assert.equal(ds[0]!.message, 'unknown field "sqll" in tool "find_orders" (did you mean "sql"?)');
    assert.equal(ds[0]!.hint, 'allowed fields: kind, description, title, source, sql, input, maxRows');
  });

  it('reports a wrong type at the value, saying what was expected', () => {
    const ds = failures(yaml('tools:', '  t: { kind: sql, source: s, sql: x, maxRows: ten }'));
    assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 2:47 tools.t.maxRows']);
    assert.equal(ds[0]!.message, 'expected an integer, got a string ("ten")');
  });

  it('suggests quoting when YAML turned text into a number', () => {
    const ds = failures(yaml('tools:', '  t: { kind: sql, source: 42, sql: x }'));
    assert.equal(ds[0]!.message, 'expected a string, got a number (42)');
    assert.match(ds[0]!.hint!, /put it in quotes/);
  });

  it('lists the allowed values of an enum, with a suggestion', () => {
    const ds = failures(yaml('tools:', '  t: { kind: http, method: GTE, path: /x }'));
    assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 2:28 tools.t.method']);
    assert.equal(
      ds[0]!.message,
      'expected one of "GET", "POST", "PUT", "DELETE"; got a string ("GTE") (did you mean "GET"?)',
    );
  });

  it('explains pattern, minItems and maximum failures', () => {
    const ds = failures(
      yaml(
        'tools:',
        '  a: { kind: http, method: GET, path: repos }',
        '  b: { kind: shell, command: [] }',
        '  c: { kind: sql, source: s, sql: x, maxRows: 100000 }',
      ),
    );
    assert.deepEqual(
      ds.map((d) => `${d.path}: ${d.message}`),
      [
        'tools.a.path: expected a string matching ^/, got a string ("repos")',
        'tools.b.command: expected at least 1 item(s), got 0',
        'tools.c.maxRows: expected at most 10000, got 100000',
      ],
    );
  });

  it('points deep into user JSON Schemas with a dotted path', () => {
    const ds = failures(
      yaml(
        'tools:',
        '  find_orders:',
        '    kind: sql',
        '    source: s',
        '    sql: x',
        '    input:',
        '      limit: { type: integer, maximum: "100" }',
      ),
    );
    assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 7:40 tools.find_orders.input.limit.maximum']);
    assert.equal(ds[0]!.message, 'expected a number, got a string ("100")');
  });

  it('collapses oneOf: the branch that fits explains, otherwise one "expected X or Y"', () => {
    const ds = failures(
      yaml(
        'tools:',
        '  a: { kind: http, method: GET, path: /x, auth: { bearer: 1 } }',
        '  b: { kind: http, method: GET, path: /x, auth: { bearer: x, basic: y } }',
        '  c: { kind: http, method: GET, path: /x, headers: 5 }',
      ),
    );
    assert.deepEqual(
      ds.map((d) => `${d.path}: ${d.message}`),
      [
        'tools.a.auth.bearer: expected a string, got a number (1)',
        'tools.b.auth: expected a mapping with "bearer" or a mapping with "basic", got a mapping with "bearer" and "basic"',
        'tools.c.headers: expected a string or a list of strings, got a number (5)',
      ],
    );
  });

  it('uses list indices in paths', () => {
    const ds = failures(yaml('prompts:', '  p:', '    messages:', '      - role: usr', '        text: hi'));
    assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 4:15 prompts.p.messages[0].role']);
  });

  it('reports several errors at once, in line order, across entries and steps', () => {
    const ds = failures(
      yaml(
        'tools:',
        '  z: { kind: sql, source: s }',
        '  "bad name": { kind: htp }',
        'sourcs: {}',
        'server: { pageSize: 5000 }',
        'prompts:',
        '  p: { messages: [] }',
      ),
    );
    assert.deepEqual(brief(ds), [
      'MANIFEST_MISSING_FIELD 2:3 tools.z',
      'MANIFEST_INVALID_NAME 3:3 tools["bad name"]',
      'MANIFEST_UNKNOWN_KIND 3:23 tools["bad name"].kind',
      'MANIFEST_UNKNOWN_FIELD 4:1 sourcs',
      'MANIFEST_INVALID_VALUE 5:21 server.pageSize',
      'MANIFEST_INVALID_VALUE 7:18 prompts.p.messages',
    ]);
  });
});

describe('diagnose', () => {
  const m = load(
    yaml(
      'sources:',
      '  shop: { kind: sqlite, path: x }',
      'tools:',
      '  x:',
      '    kind: sql',
      '    source: shpo',
      '    sql: SELECT 1',
    ),
  );

  it('turns a later problem into a diagnostic at the value', () => {
    const d = m.diagnose(['tools', 'x', 'source'], {
      code: 'SOURCE_UNKNOWN',
      message: 'unknown source "shpo" (did you mean "shop"?)',
    });
    assert.deepEqual(d, {
      code: 'SOURCE_UNKNOWN',
      message: 'unknown source "shpo" (did you mean "shop"?)',
      file: 'mcp.yaml',
      path: 'tools.x.source',
      line: 6,
      col: 13,
      frame: ['  4 |   x:', '  5 |     kind: sql', '> 6 |     source: shpo', '    |             ^'].join(
        '\n',
      ),
    });
  });

  it('falls back to the deepest part of the path that exists', () => {
    const d = m.diagnose(['tools', 'x', 'input', 'q'], { code: 'SQL_PARAM_UNDECLARED', message: 'm' });
    assert.deepEqual([d.line, d.col, d.path], [4, 3, 'tools.x.input.q']);
  });
});
