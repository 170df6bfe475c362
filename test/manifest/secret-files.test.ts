// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${file:…} in plain strings is the syntax under test.
/** `${file:…}` secrets (Docker and Kubernetes secrets), read from real files when the manifest loads. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ManifestError } from '../../src/errors.js';
import { loadManifestText } from '../../src/manifest/load.js';
import { MAX_SECRET_FILE_BYTES } from '../../src/manifest/resolve.js';
import { kinds, yaml } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-run-secret-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const manifestFile = join(dir, 'mcp.yaml');

const tool = (source: string) =>
  yaml('tools:', '  t:', '    kind: sql', `    source: "${source}"`, '    sql: SELECT 1');
const load = (text: string, offline = false) =>
  loadManifestText(text, manifestFile, kinds, {}, offline ? { offline: true, deferErrors: true } : {});
const failure = (text: string) => {
  try {
    load(text);
  } catch (e) {
    if (e instanceof ManifestError) return e;
    throw e;
  }
  throw new Error('expected the manifest to fail');
};

describe('resolve ${file:…}', () => {
  it('reads the file, trims its trailing line breaks, records the value as a secret and the path to watch', () => {
    writeFileSync(join(dir, 'db-pass'), 's3cr3t-value\r\n\n');
    const m = load(tool(`postgres://u:\${file:${join(dir, 'db-pass')}}@db/shop`));
    assert.equal(m.data.tools?.t?.source, 'postgres://u:s3cr3t-value@db/shop');
    assert.deepEqual(m.secrets, ['s3cr3t-value']);
    assert.deepEqual(m.secretFiles, [join(dir, 'db-pass')]);
  });

  it('takes a relative path from the manifest folder, and keeps inner line breaks', () => {
    writeFileSync(join(dir, 'two-lines'), 'a\nb\n');
    assert.equal(load(tool('${file:./two-lines}')).data.tools?.t?.source, 'a\nb');
  });

  it('a missing file is an error naming the file, at the line that refers to it', () => {
    const err = failure(tool('${file:/run/secrets/none-such}'));
    const [d] = err.diagnostics;
    assert.equal(d?.code, 'SECRET_FILE_UNREADABLE');
    assert.equal(d?.line, 4);
    assert.equal(d?.path, 'tools.t.source');
    assert.match(d?.message ?? '', /cannot read the secret file \/run\/secrets\/none-such: no such file/);
  });

  it('a file larger than the limit, a folder or an empty path is refused', () => {
    writeFileSync(join(dir, 'big'), 'x'.repeat(MAX_SECRET_FILE_BYTES + 1));
    assert.match(failure(tool('${file:./big}')).message, /larger than 65536 bytes/);
    assert.match(failure(tool(`\${file:${dir}}`)).message, /not a file/);
    assert.match(failure(tool('${file:}')).message, /no path is given/);
    assert.match(failure(tool('${file:./unclosed')).message, /malformed/);
  });

  it('$${file:…} is a literal', () => {
    assert.equal(load(tool('$${file:/x}')).data.tools?.t?.source, '${file:/x}');
  });

  it('offline, a missing file is a warning: needed at serve time', () => {
    const m = load(tool('${file:/run/secrets/none-such}'), true);
    assert.deepEqual(m.errors, []);
    assert.deepEqual(
      m.warnings?.map((w) => [w.code, w.path]),
      [['SECRET_FILE_NEEDED_AT_SERVE', 'tools.t.source']],
    );
    assert.match(m.warnings?.[0]?.message ?? '', /\/run\/secrets\/none-such .*needed at serve time/);
  });
});
