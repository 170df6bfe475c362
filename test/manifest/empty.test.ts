/**
 * A manifest that parses to nothing is a broken edit (a save cut short), never "serve nothing":
 * the pipeline refuses it, so `validate` fails and a reload keeps the last good catalog.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ManifestError } from '../../src/errors.js';
import { loadManifest } from '../../src/manifest/load.js';
import { brief, failures, kinds, load, yaml } from './helpers.js';

describe('a manifest that declares nothing', () => {
  const empty = {
    'an empty file': '',
    'only whitespace': '\n  \n\n',
    'only comments': '# mcp.yaml\n# tools come here\n',
    'an explicit null document': '~\n',
    'an empty mapping': '{}\n',
    'no section at all': yaml('server: { name: demo, version: 1.0.0 }'),
  };
  for (const [what, text] of Object.entries(empty)) {
    it(`refuses ${what} with MANIFEST_EMPTY`, () => {
      const ds = failures(text);
      assert.deepEqual(
        ds.map((d) => d.code),
        ['MANIFEST_EMPTY'],
      );
      assert.match(ds[0]!.message, /declares nothing/);
      assert.match(ds[0]!.hint!, /half-way/);
    });
  }

  it('accepts an empty section: it is still being written, not lost', () => {
    assert.deepEqual(load(yaml('server: { name: x }', 'tools:')).data, { server: { name: 'x' } });
    assert.deepEqual(load('prompts: {}\n').data, { prompts: {} });
  });

  it('reports a misspelt section as unknown, not as empty', () => {
    assert.deepEqual(brief(failures(yaml('tool:', '  a: { kind: sql, source: s, sql: SELECT 1 }'))), [
      'MANIFEST_UNKNOWN_FIELD 1:1 tool',
    ]);
  });

  it('refuses a truncated file on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-run-empty-'));
    after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'mcp.yaml');
    await writeFile(file, '');
    await assert.rejects(loadManifest(file, kinds, {}), (e: unknown) => {
      assert.ok(e instanceof ManifestError);
      assert.deepEqual(
        e.diagnostics.map((d) => [d.code, d.file]),
        [['MANIFEST_EMPTY', file]],
      );
      return true;
    });
  });
});
