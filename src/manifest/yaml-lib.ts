/**
 * The `yaml` package, loaded on first use. A manifest the fast path (fast-parse.ts) reads needs it
 * only to point a message at a line, so serving a valid manifest never loads its ~80 modules. It is
 * loaded synchronously (its Node entry is CommonJS) because positions are asked for synchronously.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

let loaded: Yaml | undefined;

export function yamlLib(): Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as Yaml;
  return loaded;
}
