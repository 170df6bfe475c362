import { compileCatalog } from '../catalog/compile.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';

/**
 * `mcp-run validate`: everything serving would check (compiling opens the sources, so a missing
 * database file is reported too), then closes what it opened. Exit 0 when valid, 1 when not.
 */
export async function validateCommand(file: string, options: { json?: boolean }): Promise<void> {
  const registry = builtinKinds();
  const log = new StderrLogger('warn');
  try {
    const manifest = await loadManifest(file, registry);
    log.addSecrets(manifest.secrets);
    const catalog = await compileCatalog(manifest, registry, log);
    await catalog.dispose();
    const counts = `${catalog.tools.size} tools, ${catalog.resources.size} resources, ${catalog.templates.length} resource templates, ${catalog.prompts.size} prompts`;
    if (options.json) process.stdout.write(`${JSON.stringify({ valid: true, errors: [] })}\n`);
    else process.stdout.write(`${file} is valid: ${counts}\n`);
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    if (options.json) {
      process.stdout.write(
        `${log.redact(JSON.stringify({ valid: false, errors: err.diagnostics }, null, 2))}\n`,
      );
    } else {
      const n = err.diagnostics.length;
      process.stderr.write(`${log.redact(err.message)}\n\n${n} error${n === 1 ? '' : 's'} in ${file}\n`);
    }
    process.exitCode = 1;
  }
}
