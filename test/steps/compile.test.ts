/**
 * The steps as manifest fields: what compiles, and each mistake reported where it is, with the
 * manifest's usual codes, when the manifest loads (never at call time).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { tempFiles } from '../helpers/demo.js';
import { callContext } from '../kinds/context.js';

async function load(manifest: string) {
  const temp = tempFiles({
    'mcp.yaml': manifest,
    'seed.sql': 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, reason TEXT);',
  });
  try {
    return await loadCatalog(join(temp.dir, 'mcp.yaml'), builtinKinds(), new StderrLogger('error'));
  } finally {
    temp.cleanup();
  }
}

async function problems(manifest: string): Promise<string[]> {
  try {
    await load(manifest);
  } catch (err) {
    if (err instanceof ManifestError) return err.diagnostics.map((d) => `${d.code} ${d.path}: ${d.message}`);
    throw err;
  }
  assert.fail('the manifest compiled');
}

const tool = (body: string) => `tools:\n  t:\n    kind: content\n    description: x\n${body}`;

test('answers are values the SQL and templates use, but not arguments of the tool', async () => {
  const { catalog } = await load(`
sources:
  db: { kind: sqlite, path: ./notes.db, seed: ./seed.sql, readOnly: false }
tools:
  archive:
    kind: sql
    source: db
    readOnly: false
    description: Archives a note with the reason the user gives.
    input:
      id: { type: integer }
    ask:
      message: Why archive note {{id}}?
      fields:
        reason: { type: string, minLength: 3 }
    confirm: "Archive note {{id}} because {{reason}}?"
    sql: UPDATE notes SET reason = :reason WHERE id = :id
`);
  try {
    const archive = catalog.tools.get('archive')!.descriptor;
    assert.deepEqual(archive.inputSchema, {
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id'],
      additionalProperties: false,
    });
  } finally {
    await catalog.dispose();
  }
});

test('a sample after the action drops the derived outputSchema (the reply is text)', async () => {
  const { catalog } = await load(`
server: { outputSchemas: derived }
sources:
  db: { kind: sqlite, path: ./notes.db, seed: ./seed.sql }
tools:
  explain:
    kind: sql
    source: db
    description: Notes, explained by the client's model.
    sql: SELECT id, body FROM notes
    sample: { prompt: "Explain: {{result}}", maxTokens: 100 }
  plain:
    kind: sql
    source: db
    description: Notes.
    sql: SELECT id, body FROM notes
`);
  try {
    assert.equal(catalog.tools.get('explain')!.descriptor.outputSchema, undefined);
    assert.ok(catalog.tools.get('plain')!.descriptor.outputSchema, 'the same query without sample keeps it');
  } finally {
    await catalog.dispose();
  }
});

test('each mistake is reported at its field, all at once', async () => {
  const found = await problems(`
tools:
  a:
    kind: content
    description: x
    input:
      name: { type: string }
    ask:
      fields:
        name: { type: string }
    content: [{ text: "{{name}}" }]
  b:
    kind: content
    description: x
    confirm: "Delete {{nope}}?"
    content: [{ text: ok }]
  c:
    kind: content
    description: x
    ask:
      fields:
        pick: { type: string, enum: [a, b], enumNames: [A] }
        many: { type: array }
        size: { type: integer, default: big }
        when: { type: number, minLength: 2 }
    content: [{ text: ok }]
  d:
    kind: content
    description: x
    outputSchema: { type: object }
    sample: { prompt: "{{result}}", maxTokens: 5 }
    structured: { a: 1 }
  e:
    kind: content
    description: x
    ask:
      - { key: same, fields: { x: { type: string } } }
      - { key: same, message: "{{x}} again?", fields: { y: { type: string } } }
    sample: { prompt: "{{result}}", maxTokens: 5, into: x }
    content: [{ text: ok }]
`);
  const expected = [
    /^MANIFEST_INVALID_VALUE tools\.a\.ask\.fields: the value "name" is already an argument/,
    /^TEMPLATE_UNKNOWN_VARIABLE tools\.b\.confirm: the template uses \{\{nope\}\}/,
    /^MANIFEST_INVALID_VALUE tools\.c\.ask\.fields\.pick\.enumNames: enumNames needs an enum with exactly as many values/,
    /^MANIFEST_INVALID_VALUE tools\.c\.ask\.fields\.many\.items: a multi-select \(type array\) needs items/,
    /^MANIFEST_INVALID_VALUE tools\.c\.ask\.fields\.size\.default: the default does not fit the field: value must be integer/,
    /^MANIFEST_INVALID_VALUE tools\.c\.ask\.fields\.when\.minLength: minLength applies to a field of type string, not number/,
    /^MANIFEST_INVALID_VALUE tools\.d\.outputSchema: this tool's result is the model's reply/,
    /^MANIFEST_INVALID_VALUE tools\.e\.ask\[1\]\.key: the key "same" is used by another step/,
    /^TEMPLATE_UNKNOWN_VARIABLE tools\.e\.sample\.prompt: the template uses \{\{result\}\}/,
    /^MANIFEST_INVALID_VALUE tools\.e\.sample\.into: the value "x" is already an argument or an earlier answer/,
  ];
  for (const pattern of expected) {
    assert.ok(
      found.some((line) => pattern.test(line)),
      `${pattern}\nnot among:\n${found.join('\n')}`,
    );
  }
});

test('the manifest schema knows the steps: an unknown field or a bad shape is refused', async () => {
  const found = await problems(
    tool(
      `    confirm: { message: Sure?, fallback: maybe }\n    ask: { fields: { x: { type: object } } }\n    roots: yes\n    content: [{ text: ok }]\n`,
    ),
  );
  assert.ok(
    found.some((line) => line.includes('tools.t.confirm')),
    found.join('\n'),
  );
  assert.ok(
    found.some((line) => line.includes('tools.t.ask')),
    found.join('\n'),
  );
  assert.ok(
    found.some((line) => line.includes('tools.t.roots')),
    found.join('\n'),
  );
});

test('a derived outputSchema is listed only with server.outputSchemas: derived; a declared one always', async () => {
  const temp = tempFiles({
    'seed.sql': 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, reason TEXT);',
    'mcp.yaml': `
sources:
  db: { kind: sqlite, path: ./notes.db, seed: ./seed.sql }
tools:
  plain:
    kind: sql
    source: db
    description: Notes.
    sql: SELECT id, body FROM notes
  declared:
    kind: sql
    source: db
    description: Notes, with the schema the author wrote.
    sql: SELECT id, body FROM notes
    outputSchema: { type: object, properties: { rows: { type: array } }, required: [rows] }
`,
  });
  const { catalog } = await loadCatalog(
    join(temp.dir, 'mcp.yaml'),
    builtinKinds(),
    new StderrLogger('error'),
  );
  try {
    assert.equal(catalog.tools.get('plain')!.descriptor.outputSchema, undefined);
    assert.deepEqual(catalog.tools.get('declared')!.descriptor.outputSchema, {
      type: 'object',
      properties: { rows: { type: 'array' } },
      required: ['rows'],
    });
    // The rows still come back as structured content, and the declared schema is enforced on them.
    const ctx = callContext();
    const plain = await catalog.tools.get('plain')!.call({}, ctx);
    assert.deepEqual(plain.structuredContent, { rows: [], rowCount: 0, truncated: false });
    const declared = await catalog.tools.get('declared')!.call({}, ctx);
    assert.equal(declared.isError, undefined);
  } finally {
    await catalog.dispose();
    temp.cleanup();
  }
});
