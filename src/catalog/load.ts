/**
 * The whole pipeline for one manifest file: parse → validate → resolve → compile. Throws a
 * ManifestError listing every problem; on success the environment values it used are registered as
 * secrets with the logger before anything can log them.
 */
import type { KindRegistry } from '../kinds/registry.js';
import type { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';
import { type CompileOptions, compileCatalog } from './compile.js';
import type { Catalog } from './types.js';

/** The catalog, and the manifest text it was built from (hot reload compares later edits to it). */
export interface LoadedCatalog {
  readonly catalog: Catalog;
  readonly text: string;
}

export async function loadCatalog(
  file: string,
  registry: KindRegistry,
  log: StderrLogger,
  env: NodeJS.ProcessEnv = process.env,
  options: Pick<CompileOptions, 'onWarning'> = {},
): Promise<LoadedCatalog> {
  // Structure and compile errors come in one report: entries that pass their schema still compile.
  const manifest = await loadManifest(file, registry, env, { deferErrors: true });
  log.addSecrets(manifest.secrets);
  return { catalog: await compileCatalog(manifest, registry, log, options), text: manifest.text };
}
