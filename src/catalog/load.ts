/**
 * The whole pipeline for one manifest file: parse → validate → resolve → compile. Throws a
 * ManifestError listing every problem; on success the environment values it used are registered as
 * secrets with the logger before anything can log them.
 */
import type { KindRegistry } from '../kinds/registry.js';
import type { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';
import { compileCatalog } from './compile.js';
import type { Catalog } from './types.js';

export async function loadCatalog(
  file: string,
  registry: KindRegistry,
  log: StderrLogger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Catalog> {
  const manifest = await loadManifest(file, registry, env);
  log.addSecrets(manifest.secrets);
  return compileCatalog(manifest, registry, log);
}
