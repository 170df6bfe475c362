/**
 * `mcp-run import mcp -- <command…>` (or `--url URL`): starts the upstream MCP server as a
 * `kind: mcp` source would, reads its lists, and prints a manifest (or writes it with `-o FILE`)
 * that brings every tool, resource, resource template and prompt in one at a time, each with the
 * upstream's description written into the manifest: from then on the descriptions are the
 * manifest's, pinned, and an upstream that re-describes a tool reaches no client
 * (docs/upstream-mcp.md). Everything read from the upstream is written as data (manifest/literal.ts):
 * a description saying `${env:SECRET}` stays that text.
 * Exit codes: 0 done; 1 the upstream could not be started or read, or FILE exists without --force;
 * 2 bad usage (neither or both of a command and --url, a bad --name).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { loadCatalog } from '../catalog/load.js';
import type { Catalog } from '../catalog/types.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { NAME_PATTERNS } from '../manifest/envelope.js';
import { manifestData } from '../manifest/literal.js';
import { escapeControls } from './print.js';

export interface ImportMcpOptions {
  readonly url?: string;
  readonly name?: string;
  readonly output?: string;
  readonly force?: boolean;
}

const NAME = new RegExp(NAME_PATTERNS.sources);
/** The longest resource name a manifest takes (NAME_PATTERNS.resources). */
const MAX_RESOURCE_NAME = 64;

export async function importMcpCommand(command: readonly string[], options: ImportMcpOptions): Promise<void> {
  const name = options.name ?? 'upstream';
  if ((command.length === 0) === (options.url === undefined))
    return usage(
      'give the upstream as a command after `--` (mcp-run import mcp -- npx -y server) or as --url URL',
    );
  if (!NAME.test(name))
    return usage(`--name ${JSON.stringify(name)}: letters, digits, _ . - only, at most 64 of them`);
  if (options.output !== undefined && existsSync(options.output) && !options.force) {
    process.stderr.write(`mcp-run: ${options.output} exists; pass --force to replace it\n`);
    process.exitCode = 1;
    return;
  }
  const where = command.length > 0 ? { command: [...command] } : { url: options.url as string };
  // Read through the source kind itself, every entry exposed as it is named upstream.
  const folder = mkdtempSync(join(tmpdir(), 'mcp-run-import-mcp-'));
  const probe = join(folder, 'mcp.yaml');
  const program = command[0];
  const started =
    program !== undefined && /[\\/]/.test(program) && !isAbsolute(program)
      ? { command: [resolve(program), ...command.slice(1)], cwd: process.cwd() }
      : { ...where, ...(command.length > 0 && { cwd: process.cwd() }) };
  writeFileSync(
    probe,
    JSON.stringify(
      manifestData({
        sources: { [name]: { kind: 'mcp', ...started, expose: { tools: {}, resources: {}, prompts: {} } } },
      }),
    ),
  );
  let catalog: Catalog;
  try {
    ({ catalog } = await loadCatalog(probe, builtinKinds(), new StderrLogger('silent')));
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    const errors = err.diagnostics.filter((d) => d.severity !== 'warning');
    process.stderr.write(
      `mcp-run: cannot read the upstream\n${escapeControls(errors.map((d) => `${d.code}: ${d.message}`).join('\n'))}\n`,
    );
    process.exitCode = 1;
    return;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  let text: string;
  try {
    text = render(name, where, catalog);
  } finally {
    await catalog.dispose();
  }
  if (options.output === undefined) process.stdout.write(text);
  else {
    writeFileSync(options.output, text);
    process.stderr.write(`mcp-run: wrote ${options.output}\n`);
  }
}

/**
 * Names the resources of the manifest from the upstream's names: each a valid resource name (its
 * other characters made `_`, at most 64 of them: a longer one is cut and ends in a hash of the
 * whole), and unique (a repeated one numbered `_2`, `_3`, …). Each base name remembers the last
 * number it gave, so n repeats of one name cost n steps, not n²/2.
 */
export function resourceNamer(): (wanted: string) => string {
  const taken = new Set<string>();
  const numbered = new Map<string, number>();
  return (wanted) => {
    const base = wanted.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'resource';
    let key = fit(base, wanted, '');
    if (taken.has(key)) {
      let n = numbered.get(base) ?? 1;
      do key = fit(base, wanted, `_${++n}`);
      while (taken.has(key));
      numbered.set(base, n);
    }
    taken.add(key);
    return key;
  };
}

/** `base` and `suffix` in MAX_RESOURCE_NAME characters: cut, with 8 hex of `wanted`'s hash, if too long. */
function fit(base: string, wanted: string, suffix: string): string {
  if (base.length + suffix.length <= MAX_RESOURCE_NAME) return `${base}${suffix}`;
  const hash = createHash('sha256').update(wanted).digest('hex').slice(0, 8);
  return `${base.slice(0, MAX_RESOURCE_NAME - suffix.length - hash.length - 1)}_${hash}${suffix}`;
}

function usage(message: string): void {
  process.stderr.write(`mcp-run import mcp: ${message}\n`);
  process.exitCode = 2;
}

/** The manifest: the source as given, and every entry one at a time with its description pinned. */
function render(name: string, where: object, catalog: Catalog): string {
  const described = (description: string | undefined) => (description === undefined ? {} : { description });
  const tools: Record<string, object> = {};
  for (const [key, tool] of catalog.tools)
    tools[key] = { kind: 'mcp', source: name, tool: key, ...described(tool.descriptor.description) };
  const resources: Record<string, object> = {};
  const place = resourceNamer();
  for (const resource of catalog.resources.values()) {
    const { name: named, uri, description } = resource.descriptor;
    resources[place(named)] = { kind: 'mcp', source: name, uri, ...described(description) };
  }
  for (const template of catalog.templates) {
    const { name: named, uriTemplate, description } = template.descriptor;
    resources[place(named)] = { kind: 'mcp', source: name, uriTemplate, ...described(description) };
  }
  const prompts: Record<string, object> = {};
  for (const [key, prompt] of catalog.prompts)
    prompts[key] = { kind: 'mcp', source: name, prompt: key, ...described(prompt.descriptor.description) };
  const data = manifestData({
    sources: { [name]: { kind: 'mcp', ...where } },
    ...(Object.keys(tools).length > 0 && { tools }),
    ...(Object.keys(resources).length > 0 && { resources }),
    ...(Object.keys(prompts).length > 0 && { prompts }),
  });
  return `# Made by mcp-run import mcp. Each entry's description is the upstream's at import time, now
# the manifest's: a later change upstream reaches no client. Edit them freely; rename keys to rename tools.
${stringify(data, { lineWidth: 0 })}`;
}
