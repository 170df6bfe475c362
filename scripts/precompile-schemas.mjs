// Build step after tsc: writes the ajv standalone validators of the manifest's own schemas into
// dist/manifest/precompiled/ (src/manifest/precompile.ts says what and why), each with the V8 code
// cache of its compiled function beside it (src/util/code-cache.cts).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinKinds } from '../dist/kinds/builtin.js';
import { precompiledSources } from '../dist/manifest/precompile.js';
import { writeCodeCache } from '../dist/util/code-cache.cjs';

const base = join(dirname(fileURLToPath(import.meta.url)), '../dist/manifest');
rmSync(join(base, 'precompiled'), { recursive: true, force: true });
mkdirSync(join(base, 'precompiled'), { recursive: true });
const files = [];
for (const [file, code] of precompiledSources(builtinKinds())) {
  writeFileSync(join(base, file), code);
  files.push(join(base, file));
}
// One call compiles a validator's function (ajv writes one per schema), whatever it is given. V8
// takes a cache only under the flags it was made with: V8's own here, as at a start of the command
// line (cli/young-generation.cts says when a start changes them).
for (const file of files) writeCodeCache(file, (validate) => validate({}));
