import { compileCatalog } from '../catalog/compile.js';
import { type Diagnostic, formatDiagnostic, ManifestError, sortByPosition } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';
import type { ManifestData } from '../manifest/types.js';
import { describeCounts, plural } from './counts.js';
import { escapeControls } from './print.js';

export interface ValidateOptions {
  readonly json?: boolean;
  /** Warnings fail the check too (exit 1), for CI. */
  readonly strict?: boolean;
  /** No secrets and no services: no source is opened, a missing variable is a warning. */
  readonly offline?: boolean;
}

/**
 * `mcp-run validate`: everything serving would check, in one pass: the structure of every entry,
 * and the compile of every entry whose structure is right (which opens the sources, so a missing
 * database file is reported too), then closes what it opened. `--offline` checks what needs no
 * secret and no service and opens nothing. Exit 0 when valid, 1 when not (or, with `--strict`,
 * when there is a warning).
 */
export async function validateCommand(file: string, options: ValidateOptions): Promise<void> {
  const registry = builtinKinds();
  const log = new StderrLogger('warn');
  const warnings: Diagnostic[] = [];
  const offline = options.offline === true;
  let errors: readonly Diagnostic[] = [];
  let counts = '';
  try {
    const manifest = await loadManifest(file, registry, process.env, { deferErrors: true, offline });
    log.addSecrets(manifest.secrets);
    const catalog = await compileCatalog(manifest, registry, log, {
      offline,
      onWarning: (w) => warnings.push(w),
    });
    try {
      // Offline, tools on a source do not compile (no source is open): count what the manifest declares.
      counts = offline ? declared(manifest.data) : await describeCounts(catalog);
    } finally {
      await catalog.dispose();
    }
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    errors = err.diagnostics;
  }
  const valid = errors.length === 0 && !(options.strict && warnings.length > 0);
  if (options.json) {
    const report = { valid, offline, errors, warnings };
    process.stdout.write(`${log.redact(JSON.stringify(report, null, 2))}\n`);
  } else {
    const all = sortByPosition([...errors, ...warnings]);
    // A message may quote a value an importer copied from a third party's document: shown escaped.
    const shown = escapeControls(log.redact(all.map(formatDiagnostic).join('\n\n')));
    if (all.length > 0) process.stderr.write(`${shown}\n\n`);
    const counted = [plural(errors.length, 'error'), plural(warnings.length, 'warning')];
    const found = counted.filter((c) => !c.startsWith('0 ')).join(' and ');
    if (errors.length > 0) process.stderr.write(`${found} in ${file}\n`);
    else if (!valid) process.stderr.write(`${found} in ${file} (--strict fails on warnings)\n`);
    else {
      const how = offline
        ? ' offline (no source opened; sources and the SQL they run are checked when serving)'
        : '';
      const also = warnings.length > 0 ? `; ${plural(warnings.length, 'warning')}` : '';
      process.stdout.write(`${file} is valid${how}: ${counts}${also}\n`);
    }
  }
  if (!valid) process.exitCode = 1;
}

function declared(data: ManifestData): string {
  const n = (section: keyof ManifestData) => Object.keys(data[section] ?? {}).length;
  // Offline nothing is listed: a resource entry may serve many (a folder, a database's tables).
  return `declares ${[plural(n('tools'), 'tool'), plural(n('resources'), 'resource entry', 'resource entries'), plural(n('prompts'), 'prompt')].join(', ')}`;
}
