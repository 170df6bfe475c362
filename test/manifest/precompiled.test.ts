/**
 * The validators `npm run build` precompiles (src/manifest/precompile.ts) are in sync with the
 * schemas: every built file is what the generator makes from the current schemas, and the run
 * time uses a file only when its fingerprint matches the schema asked for.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { precompiledSources, precompileTargets } from '../../src/manifest/precompile.js';
import { fingerprint, MANIFEST_AJV_OPTIONS } from '../../src/manifest/precompiled.js';
import { asciiSource } from '../../src/util/ascii-source.js';
import { REPO } from '../helpers/demo.js';

const BUILT = join(REPO, 'dist/manifest');

describe('precompiled manifest validators', () => {
  const sources = precompiledSources(builtinKinds());

  test('the build wrote exactly the files the generator makes, byte for byte', () => {
    assert.ok(sources.size > 15, `${sources.size} validators`);
    const built = readdirSync(join(BUILT, 'precompiled'))
      .map((f) => `precompiled/${f}`)
      .sort();
    // Each with the V8 code cache the build wrote beside it (src/util/code-cache.ts).
    const expected = [...sources.keys()].flatMap((file) => [file, `${file}.v8-cache`]);
    assert.deepEqual(built, expected.sort());
    for (const [file, code] of sources) {
      assert.ok(existsSync(join(BUILT, file)), file);
      assert.equal(readFileSync(join(BUILT, file), 'utf8'), code, `${file} is stale: run npm run build`);
    }
  });

  test('V8 takes each code cache under the flags the command line runs with', () => {
    // A child node process with V8's own flags, as the CLI keeps them for a small manifest.
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { codeCacheRejected } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist/util/code-cache.cjs')).href)});
         const { readdirSync } = await import('node:fs');
         const dir = ${JSON.stringify(join(BUILT, 'precompiled'))};
         const files = readdirSync(dir).filter((f) => f.endsWith('.cjs'));
         console.log(JSON.stringify(files.filter((f) => codeCacheRejected(dir + '/' + f))));`,
      ],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), []);
  });

  test('each file carries the fingerprint of the schema it was compiled from', () => {
    for (const target of precompileTargets(builtinKinds())) {
      const file = join(BUILT, `precompiled/${target.key.replaceAll('/', '-')}.cjs`);
      const text = readFileSync(file, 'utf8');
      // The file is ASCII (util/ascii-source.ts): the same string, past ASCII escaped.
      assert.ok(
        text.includes(`fingerprint = ${asciiSource(JSON.stringify(fingerprint(target)))};`),
        target.key,
      );
    }
  });

  test('the built code finds every validator, so the CLI compiles none of them at start', async () => {
    const url = pathToFileURL(join(BUILT, 'precompiled.js')).href;
    const built = (await import(url)) as typeof import('../../src/manifest/precompiled.js');
    for (const target of precompileTargets(builtinKinds()))
      assert.equal(typeof built.precompiled(target), 'function', target.key);
    const content = builtinKinds().schema('tools', 'content')!;
    const validate = built.precompiled({
      key: 'tools/content',
      dialect: 'draft-07',
      options: MANIFEST_AJV_OPTIONS,
      schema: content,
    })!;
    assert.equal(validate({ kind: 'content', description: 'd', content: [{ text: 'x' }] }), true);
    assert.equal(validate({ kind: 'content', descriptio: 'd' }), false);
    assert.equal(validate.errors?.[0]?.params.additionalProperty, 'descriptio');
  });

  test('a changed schema has another fingerprint, so its stale validator is not used', () => {
    const schema = builtinKinds().schema('tools', 'content')!;
    const target = { dialect: 'draft-07' as const, options: MANIFEST_AJV_OPTIONS, schema };
    const changed = { ...target, schema: { ...schema, required: ['kind', 'description', 'extra'] } };
    assert.notEqual(fingerprint(changed), fingerprint(target));
  });
});
