/**
 * `mcp-run import openapi <spec>`: prints a manifest of `http` tools made from an OpenAPI 3.x or
 * Swagger 2.0 document, or writes it with `-o FILE` (plus the record a later `--merge` needs).
 * `--merge` updates an existing manifest and keeps the user's edits (src/openapi/merge.ts).
 * `--split` writes the tools one file per tag, included by FILE. Component schemas are written
 * once (`schemas:`) and referenced; `--no-output-schema` leaves output schemas out. A manifest
 * larger than the load limit is written with a warning that names the ways out.
 * Exit codes: 0 done; 1 the document cannot be read or imported, nothing could be imported, FILE
 * exists without --merge/--force, or what was written is larger than the load limit; 2 bad usage
 * (unknown --tags or --operations, --merge without -o, --split without -o or with --merge).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { type Contract, compareContracts, contractOf } from '../catalog/diff.js';
import { loadCatalog } from '../catalog/load.js';
import { formatDiagnostic, ManifestError, problems } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { MAX_MANIFEST_BYTES } from '../manifest/load.js';
import { badAliases } from '../manifest/parse.js';
import { type HeaderInfo, renderManifest, renderPart, toText } from '../openapi/document.js';
import { type Generated, generate, type ImportOptions } from '../openapi/generate.js';
import { ImportError, loadSpec } from '../openapi/load.js';
import {
  formatRecord,
  mergeInto,
  readSidecar,
  type Sidecar,
  sidecarOf,
  sidecarPath,
} from '../openapi/merge.js';
import { applyOverlay } from '../openapi/overlay.js';
import { formatChanges } from './diff.js';
import { escapeControls } from './print.js';

const SCHEMA = fileURLToPath(new URL('../../schemas/manifest.schema.json', import.meta.url));

export interface ImportCommandOptions {
  readonly tags?: string;
  readonly operations?: string;
  readonly name?: string;
  readonly output?: string;
  readonly merge?: boolean;
  readonly force?: boolean;
  /** `--no-output-schema` sets it false. */
  readonly outputSchema?: boolean;
  readonly inlineSchemas?: boolean;
  readonly split?: boolean;
  /** `--overlay FILE` (repeatable): Overlay 1.0 documents applied to the description first. */
  readonly overlay?: readonly string[];
  /**
   * `--allow-ref-dir DIR` (repeatable): folders besides the document's that file `$ref`s may read.
   * Not recorded for `--update`: reading outside the folder is asked for on each run.
   */
  readonly allowRefDir?: readonly string[];
  /** `--update FILE`: merge into FILE as `-o FILE --merge` does, and print the contract diff. */
  readonly update?: string;
}

export async function importOpenApiCommand(spec: string, given: ImportCommandOptions): Promise<void> {
  if (
    given.update !== undefined &&
    (given.output !== undefined || given.merge || given.force || given.split)
  ) {
    process.stderr.write(
      'mcp-run: --update FILE is the manifest to update: leave out -o, --merge, --force and --split\n',
    );
    process.exitCode = 2;
    return;
  }
  const options: ImportCommandOptions =
    given.update === undefined ? given : { ...given, output: given.update, merge: true };
  if (options.merge && !options.output) {
    process.stderr.write('mcp-run: --merge updates a manifest: name it with -o FILE\n');
    process.exitCode = 2;
    return;
  }
  if (options.split && (!options.output || options.merge)) {
    process.stderr.write(
      `mcp-run: --split writes several files: ${options.merge ? 'it cannot be combined with --merge (import again with --force)' : 'name the manifest with -o FILE'}\n`,
    );
    process.exitCode = 2;
    return;
  }
  try {
    if (options.update !== undefined) await update(spec, options, options.update);
    else run(spec, options);
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    // The problem may quote the document: its text is a third party's, shown escaped.
    process.stderr.write(`${escapeControls(formatDiagnostic({ ...err.problem, file: err.file ?? spec }))}\n`);
    process.exitCode = err.exitCode;
  }
}

function run(spec: string, options: ImportCommandOptions): void {
  const output = options.output === undefined ? undefined : resolve(options.output);
  const exists = output !== undefined && existsSync(output);
  if (exists && !options.merge && !options.force) {
    throw new ImportError(problems.IMPORT_OUTPUT_EXISTS(options.output!), 1, options.output);
  }
  const previous = exists && options.merge ? readSidecar(output) : undefined;
  const chosen: { -readonly [K in keyof Sidecar['options']]: Sidecar['options'][K] } = {
    ...pick('tags', list(options.tags) ?? previous?.options.tags),
    ...pick('operations', list(options.operations) ?? previous?.options.operations),
    ...pick('name', options.name ?? previous?.options.name),
    ...pick('outputSchema', options.outputSchema === false ? false : previous?.options.outputSchema),
    // A record from before components were written once: keep inlining, so a --merge does not
    // rewrite every output schema of a manifest the user has edited.
    ...pick(
      'inlineSchemas',
      options.inlineSchemas ||
        previous?.options.inlineSchemas ||
        (previous !== undefined && previous.schemas === undefined) ||
        undefined,
    ),
  };
  const folder = output === undefined ? process.cwd() : dirname(output);
  // Overlays given now, or those of the last import (recorded relative to the manifest's folder).
  const overlays = options.overlay?.length
    ? options.overlay.map((o) => resolve(o))
    : (previous?.options.overlays ?? []).map((o) => resolve(folder, o));
  if (overlays.length > 0) chosen.overlays = overlays.map((o) => relative(folder, o) || o);
  const overlayWarnings: string[] = [];
  const loaded = loadSpec(spec, (doc) => {
    for (const overlay of overlays) overlayWarnings.push(...applyOverlay(doc, overlay).warnings);
  });
  for (const warning of overlayWarnings) warn(warning);
  const gen = generate(loaded, { ...(chosen as ImportOptions), allowRefDirs: options.allowRefDir ?? [] });
  for (const warning of gen.warnings) warn(warning);
  if (gen.tools.length === 0) throw new ImportError(problems.IMPORT_NOTHING(gen.skipped.length), 1);
  if (gen.nameDerived) {
    const prefix = /(\$\{env:)([A-Z0-9_]+)_BASE_URL/.exec(String(gen.source.config.baseUrl))?.[2];
    process.stderr.write(
      escapeControls(
        `mcp-run: named the API "${gen.apiName}" (server ${gen.server.name}, source ${gen.sourceName}${prefix ? `, variables ${prefix}_*` : ''}); --name NAME picks another\n`,
      ),
    );
  }

  const specLabel = relative(folder, resolve(spec)) || spec;
  if (output === undefined) {
    const text = toText(renderManifest(gen, header(folder, specLabel, options)));
    if (tooLarge([['the manifest', text]])) process.exitCode = 1;
    process.stdout.write(text);
    return;
  }
  const record = sidecarOf(gen, specLabel, chosen);
  if (exists && options.merge) {
    mergeFile(output, options.output!, previous, gen);
  } else {
    const files = options.split ? splitFiles(gen, output) : [];
    const included = files.map(([path]) => relative(folder, path));
    const top = toText(
      renderManifest(gen, header(folder, specLabel, options), options.split ? included : undefined),
    );
    const all: [string, string][] = [[output, top], ...files];
    if (!options.force) {
      const taken = files.find(([path]) => existsSync(path));
      if (taken) throw new ImportError(problems.IMPORT_OUTPUT_EXISTS(relative(process.cwd(), taken[0])), 1);
    }
    for (const [path, text] of all) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    const large = tooLarge(all.map(([path, text]) => [relative(process.cwd(), path) || path, text]));
    const where = files.length ? ` (${files.length} files included by ${options.output})` : '';
    process.stdout.write(
      `Wrote ${gen.tools.length} tools to ${options.output}${where}.\n${large ? '' : `Next: mcp-run validate ${options.output}, then serve it with mcp-run ${options.output}.\n`}`,
    );
    if (large) process.exitCode = 1;
  }
  writeFileSync(sidecarPath(output), formatRecord(record));
}

/** The tools one file per tag (a tool with several tags goes with its first; none: `untagged`). */
function splitFiles(gen: Generated, output: string): [string, string][] {
  const groups = new Map<string, Generated['tools'][number][]>();
  for (const tool of gen.tools) {
    const tag = gen.tags.get(tool.name)?.[0] ?? '';
    const list = groups.get(tag) ?? [];
    list.push(tool);
    groups.set(tag, list);
  }
  const taken = new Set<string>();
  const out: [string, string][] = [];
  for (const [tag, tools] of groups) {
    const base =
      tag
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60) || 'untagged';
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    const what = tag ? `the operations tagged ${JSON.stringify(tag)}` : 'the operations without a tag';
    const comment = `Tools of ${gen.title}: ${what}; included by ${relative(dirname(output), output)}.`;
    out.push([join(dirname(output), 'tools', `${slug}.yaml`), toText(renderPart(tools, comment))]);
  }
  return out;
}

/** Warns about each text larger than the load limit, with the ways out; true when there was one. */
function tooLarge(files: readonly (readonly [string, string])[]): boolean {
  const limit = MAX_MANIFEST_BYTES / 1024 / 1024;
  let found = false;
  for (const [name, text] of files) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes <= MAX_MANIFEST_BYTES) continue;
    found = true;
    process.stderr.write(
      `mcp-run: warning: ${name} is ${(bytes / 1024 / 1024).toFixed(1)} MiB, larger than the ${limit} MiB mcp-run loads: it will not validate or serve (MANIFEST_READ).\n` +
        '  Ways out: --tags a,b (fewer operations), --no-output-schema (leaves out the output schemas, most of the bulk),\n' +
        '  or --split -o FILE (one file per tag, each included by FILE).\n',
    );
  }
  return found;
}

function mergeFile(output: string, shown: string, previous: Sidecar | undefined, gen: Generated): void {
  const doc = parseDocument(readFileSync(output, 'utf8'));
  const error = doc.errors[0]?.message.split('\n')[0] ?? badAliases(doc)[0]?.reason;
  if (error !== undefined) throw new ImportError(problems.MANIFEST_YAML(error), 1, shown);
  const report = mergeInto(doc, previous, gen);
  // Nothing changed: leave the file as it is, byte for byte.
  if (report.changed) writeFileSync(output, toText(doc));
  for (const warning of report.warnings) warn(warning);
  const parts = [
    `${report.added.length} added${names(report.added)}`,
    `${report.updated.length} updated${names(report.updated)}`,
    `${report.removed.length} removed${names(report.removed)}`,
  ];
  process.stdout.write(escapeControls(`Merged into ${shown}: tools ${parts.join(', ')}.\n`));
}

/**
 * `--update FILE`: the merge of `-o FILE --merge` (src/openapi/merge.ts), then what changed for
 * clients, as `mcp-run diff` prints it, between the manifest before and after.
 */
async function update(spec: string, options: ImportCommandOptions, file: string): Promise<void> {
  if (!existsSync(file)) throw new ImportError(problems.MANIFEST_READ(file, 'no such file'), 1, file);
  const before = await contractOrReason(file);
  run(spec, options);
  if (process.exitCode) return;
  const after = await contractOrReason(file);
  if (typeof before === 'string' || typeof after === 'string') {
    process.stdout.write(
      escapeControls(`No contract diff: ${typeof before === 'string' ? before : after}\n`),
    );
    return;
  }
  process.stdout.write(
    `\nWhat changed for clients:\n${escapeControls(formatChanges(compareContracts(before, after)))}`,
  );
}

/**
 * The manifest's contract; a variable that is not set (an imported manifest names its token as one,
 * and it changes nothing clients see) gets a stand-in value. When it does not compile: why.
 */
async function contractOrReason(file: string): Promise<Contract | string> {
  const log = new StderrLogger('silent');
  let env: NodeJS.ProcessEnv = process.env;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const { catalog } = await loadCatalog(file, builtinKinds(), log, env);
      try {
        return contractOf(catalog);
      } finally {
        await catalog.dispose();
      }
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      const unset = err.diagnostics.map((d) =>
        d.code === 'ENV_MISSING' ? /variable (\S+) is/.exec(d.message)?.[1] : undefined,
      );
      if (unset.some((name) => name === undefined)) break;
      env = { ...process.env, ...Object.fromEntries(unset.map((name) => [name, 'unset'])) };
    }
  }
  return `${file} does not compile (mcp-run validate ${file} says why)`;
}

function header(folder: string, specLabel: string, options: ImportCommandOptions): HeaderInfo {
  const args = ['mcp-run import openapi', specLabel];
  if (options.tags) args.push('--tags', options.tags);
  if (options.operations) args.push('--operations', options.operations);
  if (options.name) args.push('--name', options.name);
  if (options.outputSchema === false) args.push('--no-output-schema');
  if (options.inlineSchemas) args.push('--inline-schemas');
  if (options.split) args.push('--split');
  for (const overlay of options.overlay ?? []) args.push('--overlay', relative(folder, resolve(overlay)));
  for (const dir of options.allowRefDir ?? [])
    args.push('--allow-ref-dir', relative(folder, resolve(dir)) || '.');
  if (options.output) args.push('-o', relative(folder, resolve(options.output)));
  return {
    schemaLine: `yaml-language-server: $schema=${relative(folder, SCHEMA)}`,
    command: args.join(' '),
    specLabel,
  };
}

const list = (text: string | undefined): string[] | undefined =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

const pick = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  value === undefined ? {} : ({ [key]: value } as { [P in K]: V });

const names = (list: readonly string[]): string => (list.length > 0 ? ` (${list.join(', ')})` : '');

/** A warning may quote the document (a name, a path, an overlay's target): shown escaped. */
function warn(warning: string): void {
  process.stderr.write(`mcp-run: warning: ${escapeControls(warning)}\n`);
}
