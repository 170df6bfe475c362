/**
 * `mcp-run import openapi <spec>`: prints a manifest of `http` tools made from an OpenAPI 3.x or
 * Swagger 2.0 document, or writes it with `-o FILE` (plus the record a later `--merge` needs).
 * `--merge` updates an existing manifest and keeps the user's edits (src/openapi/merge.ts).
 * Exit codes: 0 done; 1 the document cannot be read or imported, or FILE exists without
 * --merge/--force; 2 bad usage (unknown --tags or --operations, --merge without -o).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { formatDiagnostic, problems } from '../errors.js';
import { type HeaderInfo, renderManifest, toText } from '../openapi/document.js';
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

const SCHEMA = fileURLToPath(new URL('../../schemas/manifest.schema.json', import.meta.url));

export interface ImportCommandOptions {
  readonly tags?: string;
  readonly operations?: string;
  readonly name?: string;
  readonly output?: string;
  readonly merge?: boolean;
  readonly force?: boolean;
}

export function importOpenApiCommand(spec: string, options: ImportCommandOptions): void {
  if (options.merge && !options.output) {
    process.stderr.write('mcp-run: --merge updates a manifest: name it with -o FILE\n');
    process.exitCode = 2;
    return;
  }
  try {
    run(spec, options);
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    process.stderr.write(`${formatDiagnostic({ ...err.problem, file: err.file ?? spec })}\n`);
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
  const chosen: Sidecar['options'] = {
    ...pick('tags', list(options.tags) ?? previous?.options.tags),
    ...pick('operations', list(options.operations) ?? previous?.options.operations),
    ...pick('name', options.name ?? previous?.options.name),
  };
  const gen = generate(loadSpec(spec), chosen as ImportOptions);
  for (const warning of gen.warnings) process.stderr.write(`mcp-run: warning: ${warning}\n`);

  const folder = output === undefined ? process.cwd() : dirname(output);
  const specLabel = relative(folder, resolve(spec)) || spec;
  if (output === undefined) {
    process.stdout.write(toText(renderManifest(gen, header(folder, specLabel, options))));
    return;
  }
  const record = sidecarOf(gen, specLabel, chosen);
  if (exists && options.merge) {
    mergeFile(output, options.output!, previous, gen);
  } else {
    writeFileSync(output, toText(renderManifest(gen, header(folder, specLabel, options))));
    process.stdout.write(
      `Wrote ${gen.tools.length} tools to ${options.output}.\nNext: mcp-run validate ${options.output}, then serve it with mcp-run ${options.output}.\n`,
    );
  }
  writeFileSync(sidecarPath(output), formatRecord(record));
}

function mergeFile(output: string, shown: string, previous: Sidecar | undefined, gen: Generated): void {
  const doc = parseDocument(readFileSync(output, 'utf8'));
  if (doc.errors.length > 0) {
    throw new ImportError(problems.MANIFEST_YAML(doc.errors[0]!.message.split('\n')[0] ?? ''), 1, shown);
  }
  const report = mergeInto(doc, previous, gen);
  // Nothing changed: leave the file as it is, byte for byte.
  if (report.changed) writeFileSync(output, toText(doc));
  for (const warning of report.warnings) process.stderr.write(`mcp-run: warning: ${warning}\n`);
  const parts = [
    `${report.added.length} added${names(report.added)}`,
    `${report.updated.length} updated${names(report.updated)}`,
    `${report.removed.length} removed${names(report.removed)}`,
  ];
  process.stdout.write(`Merged into ${shown}: tools ${parts.join(', ')}.\n`);
}

function header(folder: string, specLabel: string, options: ImportCommandOptions): HeaderInfo {
  const args = ['mcp-run import openapi', specLabel];
  if (options.tags) args.push('--tags', options.tags);
  if (options.operations) args.push('--operations', options.operations);
  if (options.name) args.push('--name', options.name);
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
