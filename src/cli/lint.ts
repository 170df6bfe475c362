/**
 * `mcp-run lint`: what makes the server hard for a model to use (docs/lint.md). It loads and
 * compiles the manifest as serving does, so a manifest with errors is reported as `validate` does.
 * Exit codes: 0 clean or warnings only, 1 an error-level finding or a manifest with errors.
 */
import { compileCatalog } from '../catalog/compile.js';
import { disclosureOf, servedView } from '../catalog/disclosure.js';
import { catalogView } from '../catalog/toolsets.js';
import type { Catalog } from '../catalog/types.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { type LintScope, lintCatalog } from '../lint/lint.js';
import { formatReport } from '../lint/report.js';
import { realTokenizers, type Tokenizer } from '../lint/tokenizers.js';
import { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';
import { escapeControls } from './print.js';
import { toolsetFault } from './toolset-arg.js';

/** `--tokenizer`: which counts the tokens; `auto` is the first real one installed, else the estimate. */
export const TOKENIZERS = ['auto', 'o200k', 'claude', 'estimate'] as const;

/**
 * `--toolset` (repeatable): lint what a client of those toolsets sees, their tools' token cost
 * included, as `list --toolset` shows it.
 */
export async function lintCommand(
  file: string,
  options: { json?: boolean; toolset?: readonly string[]; tokenizer?: (typeof TOKENIZERS)[number] },
): Promise<void> {
  const registry = builtinKinds();
  const log = new StderrLogger('warn');
  try {
    const manifest = await loadManifest(file, registry);
    log.addSecrets(manifest.secrets);
    const catalog = await compileCatalog(manifest, registry, log);
    const fault = toolsetFault(catalog, options.toolset);
    if (fault !== undefined) {
      await catalog.dispose();
      process.stderr.write(`mcp-run: ${fault}\n`);
      process.exitCode = 2;
      return;
    }
    const tokenizer = await pickTokenizer(options.tokenizer ?? 'auto');
    if (tokenizer === null) {
      await catalog.dispose();
      process.stderr.write(`mcp-run: --tokenizer ${options.tokenizer}: its package is not installed\n`);
      process.exitCode = 2;
      return;
    }
    const serving = {
      listed: [...servedView(catalog, options.toolset).tools.values()].map((t) => t.descriptor),
      disclosure: disclosureOf(catalog, options.toolset)?.mode,
      ...(tokenizer !== undefined && { tokenizer }),
    };
    const report =
      options.toolset === undefined
        ? lintCatalog(manifest, catalog, undefined, serving)
        : lintCatalog(
            manifest,
            catalogView(catalog, options.toolset),
            toolsetScope(catalog, options.toolset),
            serving,
          );
    await catalog.dispose();
    // A finding may quote a description an importer copied from a third party's document.
    const text = options.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : escapeControls(formatReport(report, file));
    process.stdout.write(log.redact(text));
    if (report.errors > 0) process.exitCode = 1;
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    process.stderr.write(`${log.redact(err.message)}\n`);
    process.exitCode = 1;
  }
}

/**
 * The tokenizer `--tokenizer` names: undefined for the estimate (and for `auto` when none is
 * installed), null when the one named is not installed.
 */
async function pickTokenizer(choice: (typeof TOKENIZERS)[number]): Promise<Tokenizer | undefined | null> {
  if (choice === 'estimate') return undefined;
  const found = await realTokenizers();
  if (choice === 'auto') return found[0];
  return found.find((t) => t.name.startsWith(choice === 'o200k' ? 'o200k' : 'claude')) ?? null;
}

/** The resource and prompt entries of the toolsets' union. */
function toolsetScope(catalog: Catalog, names: readonly string[]): LintScope {
  const members = names.map((name) => catalog.toolsets?.get(name)).filter((m) => m !== undefined);
  return {
    resources: new Set(members.flatMap((m) => [...m.resourceEntries])),
    prompts: new Set(members.flatMap((m) => [...m.prompts])),
  };
}
