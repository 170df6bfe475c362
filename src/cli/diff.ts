/**
 * `mcp-run diff OLD NEW`: what changed for a client between two manifests, or a manifest and a
 * running server (a URL): tools, resources, templates and prompts added, removed or renamed, and
 * every change inside them classed `breaking`, `additive` or `changed` (words only). Both sides are
 * compared as descriptors (what the lists show), through src/catalog/diff.ts.
 * A new manifest that says `reload: { refuseBreaking: true }` fails a breaking diff as its server
 * would refuse the edit (RELOAD_BREAKING_CHANGE), with or without --fail-on.
 * Exit codes: 0 nothing at the --fail-on level; 1 a change at that level (or a breaking one the new
 * manifest refuses); 2 bad usage; 3 a side cannot be read (a manifest with errors, a server that
 * does not answer).
 */
import {
  type Contract,
  type ContractChange,
  compareContracts,
  contractOf,
  summarizeContract,
} from '../catalog/diff.js';
import { loadCatalog } from '../catalog/load.js';
import { formatDiagnostic, ManifestError, problems } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { escapeControls } from './print.js';
import { RemoteError, remoteContract } from './remote-contract.js';

export interface DiffOptions {
  readonly json?: boolean;
  readonly failOn?: 'breaking' | 'any';
  /** `Name: value` headers for a URL side (a bearer token). */
  readonly header?: readonly string[];
}

export async function diffCommand(before: string, after: string, options: DiffOptions): Promise<void> {
  const log = new StderrLogger('warn');
  const headers: Record<string, string> = {};
  for (const line of options.header ?? []) {
    const colon = line.indexOf(':');
    if (colon < 1) {
      process.stderr.write(`mcp-run: --header takes "Name: value", not ${JSON.stringify(line)}\n`);
      process.exitCode = 2;
      return;
    }
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  let changes: ContractChange[];
  let refuseBreaking = false;
  try {
    const [a, b] = [await contractFrom(before, log, headers), await contractFrom(after, log, headers)];
    changes = compareContracts(a.contract, b.contract);
    refuseBreaking = b.refuseBreaking;
  } catch (err) {
    if (!(err instanceof ManifestError || err instanceof RemoteError)) throw err;
    // A server's error text is the server's: shown escaped, as its names are.
    process.stderr.write(`${escapeControls(log.redact(err.message))}\n`);
    process.exitCode = 3;
    return;
  }
  if (options.json) {
    const counts = { breaking: 0, additive: 0, changed: 0 };
    for (const c of changes) counts[c.class]++;
    process.stdout.write(
      `${JSON.stringify({ summary: summarizeContract(changes), counts, changes }, null, 2)}\n`,
    );
  } else {
    // Names, URIs and media types come from the sides compared: a URL side is any server.
    process.stdout.write(escapeControls(formatChanges(changes)));
  }
  const breaking = changes.some((c) => c.class === 'breaking');
  // The new manifest's own policy: what a server serving the old one would refuse, diff fails on.
  if (breaking && refuseBreaking) {
    const problem = problems.RELOAD_BREAKING_CHANGE(summarizeContract(changes));
    process.stderr.write(`${escapeControls(formatDiagnostic({ ...problem, file: after }))}\n`);
  }
  const failing =
    options.failOn === 'any'
      ? changes.length > 0
      : (options.failOn === 'breaking' || refuseBreaking) && breaking;
  if (failing) process.exitCode = 1;
}

async function contractFrom(
  side: string,
  log: StderrLogger,
  headers: Readonly<Record<string, string>>,
): Promise<{ contract: Contract; refuseBreaking: boolean }> {
  if (/^https?:\/\//i.test(side))
    return { contract: await remoteContract(side, headers), refuseBreaking: false };
  const { catalog } = await loadCatalog(side, builtinKinds(), log);
  try {
    return { contract: contractOf(catalog), refuseBreaking: catalog.reload?.refuseBreaking === true };
  } finally {
    await catalog.dispose();
  }
}

/** One line per change, its class first, then the summary. */
export function formatChanges(changes: readonly ContractChange[]): string {
  if (changes.length === 0) return 'no contract change\n';
  const width = Math.max(...changes.map((c) => c.class.length));
  const lines = changes.map((c) => `${c.class.padEnd(width)}  ${c.message}`);
  return `${lines.join('\n')}\n\n${summarizeContract(changes)}\n`;
}
