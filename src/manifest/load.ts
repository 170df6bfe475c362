/**
 * The manifest pipeline: read → parse (with positions) → validate (envelope, then each kind) →
 * resolve `${env:…}`. Every problem every step can find is reported at once, in file order, as one
 * ManifestError.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Diagnostic, ManifestError, type Problem, problems, sortByPosition } from '../errors.js';
import { loading } from '../util/large-load.js';
import { type Finding, isPlainObject } from './finding.js';
import { codeFrame, dottedPath } from './frame.js';
import { type FileFinding, gatherIncludes, key, type ManifestFile } from './include.js';
import type { SourceMap } from './locate.js';
import { parseYaml, type YamlFinding } from './parse.js';
import { resolveEnv } from './resolve.js';
import { expandSharedSchemas } from './schemas.js';
import {
  ENTRY_SECTIONS,
  type EntrySection,
  type KindSchemas,
  type LoadedManifest,
  type LoadOptions,
  type ManifestData,
  type ManifestPath,
} from './types.js';
import { applyDefaultKinds, ManifestValidator } from './validate.js';

/** Larger than any hand-written manifest; caps memory spent on a wrong or hostile file. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * One validator (one ajv) per kind registry: kind schemas compile once and are reused across
 * reloads, and a registry that is dropped takes its compiled schemas with it.
 */
const validators = new WeakMap<KindSchemas, ManifestValidator>();

function validatorFor(kinds: KindSchemas): ManifestValidator {
  let validator = validators.get(kinds);
  if (!validator) {
    validator = new ManifestValidator();
    validators.set(kinds, validator);
  }
  return validator;
}

/** Reads, parses (with positions), validates in two steps, resolves ${env:…}. Throws ManifestError with EVERY diagnostic, sorted by line. */
export async function loadManifest(
  file: string,
  kinds: KindSchemas,
  env: NodeJS.ProcessEnv = process.env,
  options: LoadOptions = {},
): Promise<LoadedManifest> {
  let text: string;
  try {
    const info = statSync(file);
    if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
    if (info.size > MAX_MANIFEST_BYTES) throw tooLarge(file);
    // Read at once, as the stat before it and the parse after it run: fs.readFile's four trips
    // through libuv's thread pool (started for them, at a start) cost a 10-tool start about 1 ms
    // of waiting, and the event loop has nothing else to do while the manifest loads.
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof ManifestError) throw e;
    throw new ManifestError([{ ...problems.MANIFEST_READ(file, readReason(e)), file }]);
  }
  return loadManifestText(text, file, kinds, env, options);
}

export function loadManifestText(
  text: string,
  file: string,
  kinds: KindSchemas,
  env: NodeJS.ProcessEnv = process.env,
  options: LoadOptions = {},
): LoadedManifest {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_MANIFEST_BYTES) throw tooLarge(file);
  loading(bytes);
  const parsed = parseYaml(text);
  const absolute = resolve(file);
  const top: ManifestFile = { file: absolute, text, parsed };
  if (parsed.data === undefined) {
    throw new ManifestError(sortByPosition(parsed.errors.map(diagnostics([top], new Map(), file))));
  }
  // The files it includes, merged in; each finding knows the file it is in.
  const gathered = gatherIncludes(top, { maxFileBytes: MAX_MANIFEST_BYTES });
  const toDiagnostic = diagnostics(gathered.files, gathered.origins, file);
  const includeFindings: FileFinding[] = [...gathered.findings];
  const yamlBroken = includeFindings.some((f) => f.problem.code === 'MANIFEST_YAML');
  if (yamlBroken) throw new ManifestError(sortByPosition(includeFindings.map(toDiagnostic)));

  const data = gathered.data;
  applyDefaultKinds(data, kinds);
  const findings: Finding[] = [...includeFindings, ...validatorFor(kinds).validate(data, kinds)];
  // Resolution runs even when validation failed: missing variables belong in the same report.
  const resolved = resolveEnv(data, env, dirname(resolve(file)));
  const missing = resolved.findings.filter(
    (f) => f.problem.code === 'ENV_MISSING' || f.problem.code === 'SECRET_FILE_UNREADABLE',
  );
  const warnings = options.offline
    ? missing.map((f) => ({
        ...f,
        problem:
          f.problem.code === 'ENV_MISSING'
            ? problems.ENV_NEEDED_AT_SERVE(envName(f))
            : problems.SECRET_FILE_NEEDED_AT_SERVE(secretFileOf(f, file)),
      }))
    : [];
  findings.push(...resolved.findings.filter((f) => !(options.offline && missing.includes(f))));
  // `$ref: '#/schemas/Name'` made self-contained: each schema that uses one carries its `$defs`.
  findings.push(...expandSharedSchemas(resolved.data));
  // Refused outright: nothing can be compiled from data that is not a mapping of sections.
  const fatal = !isPlainObject(data) || findings.some((f) => f.path.length === 0 && !('origin' in f));
  if (findings.length && (!options.deferErrors || fatal)) {
    throw new ManifestError(sortByPosition(findings.map(toDiagnostic)));
  }
  // Checked last, so a misspelt section (`tool:`) is reported as what it is rather than as empty.
  if (!declaresASection(data)) throw new ManifestError([{ ...problems.MANIFEST_EMPTY(), file }]);

  // An entry with a problem of its own is left out of compile: it would only pile errors on it.
  const skip = new Set(
    [...findings, ...warnings]
      // A name declared twice keeps its first declaration, which is compiled as usual.
      .filter((f) => f.problem.code !== 'MANIFEST_DUPLICATE_ENTRY')
      .flatMap((f) => [f.path, ...('alsoAt' in f ? (f.alsoAt ?? []) : [])].map(entryKey))
      .filter((k) => k !== undefined),
  );
  return {
    file: absolute,
    baseDir: dirname(absolute),
    text,
    includes: gathered.files.slice(1).map((f) => f.file),
    data: withoutEmptySections(resolved.data, findings),
    secrets: resolved.secrets,
    secretFiles: resolved.files,
    diagnose: (path: ManifestPath, problem: Problem, needle?: string) =>
      toDiagnostic({ path, problem, ...(needle !== undefined && { needle }) }),
    errors: sortByPosition(findings.map(toDiagnostic)),
    warnings: warnings.map((f) => ({ ...toDiagnostic(f), severity: 'warning' as const })),
    skipped: (section, name) => skip.has(JSON.stringify([section, name])),
  };
}

const envName = (f: Finding) => (f.needle ?? '').slice('${env:'.length);
const secretFileOf = (f: Finding, manifest: string) =>
  resolve(dirname(resolve(manifest)), (f.needle ?? '').slice('${file:'.length, -1));

/** `[section, name]` for a path inside an entry. */
function entryKey(path: ManifestPath): string | undefined {
  if (path.length < 2 || !ENTRY_SECTIONS.includes(path[0] as EntrySection)) return undefined;
  return JSON.stringify([path[0], path[1]]);
}

/**
 * Finding → diagnostic, in the file the finding is in: a finding of an include entry carries its
 * file; one inside an entry is in the file that declared the entry; anything else is the top file's.
 */
function diagnostics(files: readonly ManifestFile[], origins: ReadonlyMap<string, number>, shown: string) {
  return (f: Finding | YamlFinding | FileFinding): Diagnostic => {
    const origin =
      'origin' in f
        ? f.origin
        : f.path.length >= 2
          ? (origins.get(key(String(f.path[0]), String(f.path[1]))) ?? 0)
          : 0;
    const { file: absolute, text, parsed } = files[origin]!;
    const file = origin === 0 ? shown : absolute;
    const source: SourceMap = parsed.source;
    const offset = 'offset' in f ? f.offset : undefined;
    const pos = offset !== undefined ? source.positionOf(offset) : source.position(f.path, f.at, f.needle);
    const d: Diagnostic = { ...f.problem, file };
    return {
      ...d,
      ...(f.path.length ? { path: dottedPath(f.path) } : {}),
      ...(pos ? { line: pos.line, col: pos.col, frame: codeFrame(text, pos.line, pos.col) } : {}),
    };
  };
}

/**
 * An empty file, one of only comments, or one with no entry section is a broken edit (a save cut
 * short), not a manifest that means "serve nothing": refusing it keeps the last good catalog serving.
 */
function declaresASection(data: unknown): boolean {
  return isPlainObject(data) && (ENTRY_SECTIONS.some((section) => section in data) || 'skills' in data);
}

/**
 * `tools:` with nothing under it is allowed while writing; the data just has no such section. A
 * section with an error of its own (not a mapping) is left out: its error is reported already.
 */
function withoutEmptySections(data: unknown, findings: readonly Finding[]): ManifestData {
  if (!isPlainObject(data)) return {};
  const broken = new Set(findings.filter((f) => f.path.length === 1).map((f) => f.path[0]));
  const kept = Object.entries(data).filter(([k, v]) => v !== null && !broken.has(k));
  return Object.fromEntries(kept) as ManifestData;
}

function tooLarge(file: string): ManifestError {
  const reason = `the file is larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB`;
  return new ManifestError([{ ...problems.MANIFEST_READ(file, reason), file }]);
}

function readReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR' || code === 'ENOTFILE') return 'not a file';
  return (e as Error).message;
}
