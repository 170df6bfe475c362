/**
 * loadManifestText with deferErrors and offline, on the built-in kinds: errors are handed on rather
 * than thrown, the entries they concern are marked skipped, and JSON Schemas in a tool are checked
 * against the meta-schema one keyword at a time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { loadManifestText } from '../../src/manifest/load.js';

const kinds = builtinKinds();
const text = [
  'sources:',
  '  db: { kind: sqlite, path: ":memory:", readOnly: maybe }',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest's env reference, in a plain string.
  '  api: { kind: http, baseUrl: "${env:MCP_RUN_TEST_UNSET_URL}" }',
  'tools:',
  '  ok: { kind: sql, source: db, sql: SELECT 1 }',
  '  typed:',
  '    kind: sql',
  '    source: db',
  '    sql: SELECT :q AS q',
  '    input: { q: { type: strin, required: true } }',
  '    outputSchema: { type: objct }',
  '',
].join('\n');

describe('deferErrors', () => {
  test('without it, the first error stops the load', () => {
    assert.throws(() => loadManifestText(text, 'mcp.yaml', kinds, {}), ManifestError);
  });

  test('with it, the errors come back and only the entries they are about are skipped', () => {
    const m = loadManifestText(text, 'mcp.yaml', kinds, {}, { deferErrors: true });
    assert.deepEqual(
      m.errors?.map((d) => [d.code, d.path]),
      [
        ['MANIFEST_INVALID_VALUE', 'sources.db.readOnly'],
        ['ENV_MISSING', 'sources.api.baseUrl'],
        ['SCHEMA_INVALID', 'tools.typed.input.q.type'],
        ['SCHEMA_INVALID', 'tools.typed.outputSchema.type'],
      ],
    );
    assert.match(m.errors?.[2]?.message ?? '', /got a string \("strin"\) \(did you mean "string"\?\)$/);
    assert.match(m.errors?.[3]?.message ?? '', /\(did you mean "object"\?\)$/);
    assert.deepEqual(
      [m.skipped?.('sources', 'db'), m.skipped?.('sources', 'api'), m.skipped?.('tools', 'ok')],
      [true, true, false],
    );
    assert.equal(m.skipped?.('tools', 'typed'), true);
  });

  test('offline, a missing variable is a warning needed at serve time, and its entry is skipped', () => {
    const m = loadManifestText(text, 'mcp.yaml', kinds, {}, { deferErrors: true, offline: true });
    assert.equal(
      m.errors?.some((d) => d.code === 'ENV_MISSING'),
      false,
    );
    assert.deepEqual(
      m.warnings?.map((d) => [d.code, d.path, d.severity]),
      [['ENV_NEEDED_AT_SERVE', 'sources.api.baseUrl', 'warning']],
    );
    assert.match(
      m.warnings?.[0]?.message ?? '',
      /MCP_RUN_TEST_UNSET_URL is not set; it is needed at serve time/,
    );
    assert.equal(m.skipped?.('sources', 'api'), true);
  });
});
