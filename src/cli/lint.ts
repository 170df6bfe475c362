/**
 * `mcp-run lint`: what makes the server hard for a model to use (docs/lint.md). It loads and
 * compiles the manifest as serving does, so a manifest with errors is reported as `validate` does.
 * Exit codes: 0 clean or warnings only, 1 an error-level finding or a manifest with errors.
 */
import { compileCatalog } from '../catalog/compile.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { lintCatalog } from '../lint/lint.js';
import { formatReport } from '../lint/report.js';
import { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';

export async function lintCommand(file: string, options: { json?: boolean }): Promise<void> {
  const registry = builtinKinds();
  const log = new StderrLogger('warn');
  try {
    const manifest = await loadManifest(file, registry);
    log.addSecrets(manifest.secrets);
    const catalog = await compileCatalog(manifest, registry, log);
    const report = lintCatalog(manifest, catalog);
    await catalog.dispose();
    const text = options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, file);
    process.stdout.write(log.redact(text));
    if (report.errors > 0) process.exitCode = 1;
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    process.stderr.write(`${log.redact(err.message)}\n`);
    process.exitCode = 1;
  }
}
