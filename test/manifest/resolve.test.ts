// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${env:…} in plain strings is the syntax under test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveEnv } from '../../src/manifest/resolve.js';
import { brief, failures, load, yaml } from './helpers.js';

const tool = (source: string) =>
  yaml('tools:', '  t:', '    kind: sql', `    source: "${source}"`, '    sql: SELECT 1');
const sourceOf = (text: string, env: NodeJS.ProcessEnv) => load(text, env).data.tools?.t?.source;

describe('resolve ${env:…}', () => {
  it('substitutes a variable anywhere inside a string and records it as a secret', () => {
    const m = load(tool('postgres://u:${env:PASS}@db/${env:DB}'), { PASS: 'hunter22', DB: 'shop' });
    assert.equal(m.data.tools?.t?.source, 'postgres://u:hunter22@db/shop');
    assert.deepEqual(m.secrets, ['hunter22', 'shop']);
  });

  it('uses the default when the variable is unset or empty; defaults are not secrets', () => {
    const text = tool('${env:DB:-./shop.db}');
    assert.equal(sourceOf(text, {}), './shop.db');
    assert.equal(sourceOf(text, { DB: '' }), './shop.db');
    assert.equal(sourceOf(tool('${env:DB:-}'), {}), '');
    assert.deepEqual(load(text, {}).secrets, []);
  });

  it('treats $${ as a literal ${', () => {
    assert.equal(sourceOf(tool('$${env:HOME} and $${x}'), { HOME: '/root' }), '${env:HOME} and ${x}');
  });

  it('leaves other ${…} forms alone', () => {
    assert.equal(sourceOf(tool('${HOME} {{name}}'), { HOME: '/root' }), '${HOME} {{name}}');
  });

  it('reports every missing variable, each at its own place', () => {
    const ds = failures(
      yaml(
        'sources:',
        '  db: { kind: sqlite, path: "x/${env:NOTES_DB}" }',
        'tools:',
        '  t:',
        '    kind: sql',
        '    source: db',
        '    sql: |',
        '      SELECT 1',
        '      -- ${env:GITHUB_TOKEN}',
      ),
    );
    assert.deepEqual(brief(ds), ['ENV_MISSING 2:32 sources.db.path', 'ENV_MISSING 9:10 tools.t.sql']);
    assert.equal(ds[0]!.message, 'environment variable NOTES_DB is not set');
    assert.equal(ds[0]!.hint, 'set NOTES_DB, or give a default with ${env:NOTES_DB:-default}');
    assert.equal(
      ds[1]!.frame,
      [
        '  7 |     sql: |',
        '  8 |       SELECT 1',
        '> 9 |       -- ${env:GITHUB_TOKEN}',
        '    |          ^',
      ].join('\n'),
    );
  });

  it('reports missing variables together with schema errors', () => {
    const ds = failures(yaml('tools:', '  t: { kind: sql, source: "${env:NOPE}" }'));
    assert.deepEqual(brief(ds), ['MANIFEST_MISSING_FIELD 2:3 tools.t', 'ENV_MISSING 2:28 tools.t.source']);
  });

  it('rejects a malformed reference', () => {
    for (const bad of ['${env:1X}', '${env:}', '${env:X:default}', '${env:X']) {
      const ds = failures(tool(bad), { X: 'v' });
      assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 4:14 tools.t.source'], bad);
      assert.match(ds[0]!.message, /^malformed environment reference/);
    }
  });

  it('never resolves keys or an entry kind', () => {
    const m = load(
      yaml(
        'prompts:',
        '  p:',
        '    arguments: { "${env:K}": { description: "${env:K}" } }',
        '    messages: [{ role: user, text: hi }]',
      ),
      { K: 'value' },
    );
    assert.deepEqual(m.data.prompts?.p?.arguments, { '${env:K}': { description: 'value' } });
    const ds = failures(yaml('tools:', '  t: { kind: "${env:KIND}", source: s, sql: x }'), { KIND: 'sql' });
    assert.deepEqual(brief(ds), ['MANIFEST_UNKNOWN_KIND 2:14 tools.t.kind']);
  });

  it('resolves after validation, so a reference in a number field is a type error', () => {
    const ds = failures(yaml('server: { pageSize: "${env:SIZE}" }'), { SIZE: '10' });
    assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 1:21 server.pageSize']);
  });

  it('returns a subtree without references as the same object, and copies only the way to one', () => {
    const plain = { description: 'no reference', input: { q: { type: 'string', enum: ['a', 'b'] } } };
    const deep = { kind: 'http', query: { page: '${env:PAGE}' }, headers: { accept: 'json' } };
    const data = { tools: { plain, deep }, prompts: { p: { messages: [{ text: 'hi' }] } } };
    const before = JSON.stringify(data);
    const resolved = resolveEnv(data, { PAGE: '2' }).data as typeof data;

    assert.equal(resolved.tools.plain, plain, 'a tool without a reference is the same object');
    assert.equal(resolved.prompts, data.prompts, 'a section without a reference is the same object');
    assert.equal(resolved.tools.deep.query.page, '2', 'the reference deep in the tree is resolved');
    assert.notEqual(resolved.tools.deep, deep, 'the way to it is a copy');
    assert.equal(resolved.tools.deep.headers, deep.headers, 'its unchanged siblings are shared');
    assert.equal(JSON.stringify(data), before, 'the given tree is left as it was');
  });

  it('resolves a reference in a list and under a __proto__ key, which stays a plain key', () => {
    const data = JSON.parse('{"tools":{"t":{"__proto__":{"x":"${env:A}"},"args":["a","${env:A}"]}}}');
    const resolved = resolveEnv(data, { A: 'v' }).data as { tools: { t: Record<string, unknown> } };
    const t = resolved.tools.t;
    assert.deepEqual(t.args, ['a', 'v']);
    assert.deepEqual(Object.keys(t), ['__proto__', 'args']);
    assert.equal(Object.getPrototypeOf(t), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(t, '__proto__')?.value, { x: 'v' });
  });
});
