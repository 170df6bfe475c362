// Build step after tsc: writes the ajv standalone validators of the manifest's own schemas into
// dist/manifest/precompiled/ (src/manifest/precompile.ts says what and why).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinKinds } from '../dist/kinds/builtin.js';
import { precompiledSources } from '../dist/manifest/precompile.js';

const base = join(dirname(fileURLToPath(import.meta.url)), '../dist/manifest');
rmSync(join(base, 'precompiled'), { recursive: true, force: true });
mkdirSync(join(base, 'precompiled'), { recursive: true });
for (const [file, code] of precompiledSources(builtinKinds())) writeFileSync(join(base, file), code);
