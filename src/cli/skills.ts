/**
 * `mcp-run skills export`: writes the skills made from a manifest's toolsets (docs/skills.md) to a
 * folder for review, one folder per skill, byte for byte what `skills: { fromToolsets }` serves.
 *
 * A skill's folder that exists with other contents is refused (exit 1) unless `--force`, which
 * replaces it whole, so the folder holds exactly the skill; one already identical is left alone.
 * Every folder is checked before anything is written. Exit codes: 0 written (or unchanged); 1 the
 * manifest has errors, or a folder is in the way; 2 bad usage (an unknown toolset, a manifest
 * without toolsets, no --out).
 */
import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { compileCatalog } from '../catalog/compile.js';
import { skillsFromToolsets } from '../catalog/skills-from-toolsets.js';
import type { Catalog, CatalogSkill } from '../catalog/types.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import { escapeControls } from './print.js';
import { toolsetFault } from './toolset-arg.js';

export interface SkillsExportOptions {
  readonly out: string;
  readonly toolset?: readonly string[];
  readonly force?: boolean;
}

export async function skillsExportCommand(file: string, options: SkillsExportOptions): Promise<void> {
  const registry = builtinKinds();
  const log = new StderrLogger('warn');
  let catalog: Catalog | undefined;
  try {
    const manifest = await loadManifest(file, registry);
    log.addSecrets(manifest.secrets);
    catalog = await compileCatalog(manifest, registry, log);
    const chosen = exportedToolsets(manifest, catalog, options.toolset);
    if (typeof chosen === 'string') return usage(chosen);
    const { skills } = await skillsFromToolsets(manifest, catalog, chosen);
    const result = await exportSkills(
      skills.map((s) => s.skill),
      options.out,
      options.force === true,
    );
    const text = result.lines.map((line) => `${escapeControls(line)}\n`).join('');
    if (result.ok) process.stdout.write(text);
    else {
      process.stderr.write(text);
      process.exitCode = 1;
    }
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    process.stderr.write(`${log.redact(err.message)}\n`);
    process.exitCode = 1;
  } finally {
    await catalog?.dispose();
  }
}

function usage(message: string): void {
  process.stderr.write(`mcp-run: ${message}\n`);
  process.exitCode = 2;
}

/**
 * The toolsets to export: those `--toolset` names, else those `skills.fromToolsets` serves, else
 * every toolset. A string says why there is nothing to export.
 */
function exportedToolsets(
  manifest: LoadedManifest,
  catalog: Catalog,
  named: readonly string[] | undefined,
): readonly string[] | string {
  const all = [...(catalog.toolsets?.keys() ?? [])];
  if (all.length === 0)
    return 'the manifest has no toolsets: a generated skill teaches one toolset (docs/toolsets.md)';
  if (named !== undefined) return toolsetFault(catalog, named) ?? named;
  return servedToolsets(manifest) ?? all;
}

/** `skills.fromToolsets`, when the manifest serves generated skills. */
function servedToolsets(manifest: LoadedManifest): readonly string[] | undefined {
  const skills = (manifest.data as { skills?: { fromToolsets?: readonly string[] } }).skills;
  return skills?.fromToolsets;
}

/** What was written (or left alone), or, when a folder is in the way, why nothing was. */
interface ExportResult {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

/** Checks every skill's folder, then writes those that differ; nothing is written if one is in the way. */
export async function exportSkills(
  skills: readonly CatalogSkill[],
  out: string,
  force: boolean,
): Promise<ExportResult> {
  const plans = await Promise.all(
    skills.map(async (skill) => {
      const files = new Map<string, Buffer>();
      for (const file of skill.files) files.set(file.path, Buffer.from(await file.read()));
      const dir = join(out, skill.name);
      return { skill, files, dir, state: await folderState(dir, files) };
    }),
  );
  const blocked = plans.filter((p) => p.state === 'different' && !force);
  if (blocked.length > 0)
    return {
      ok: false,
      lines: blocked.map(
        (p) =>
          `mcp-run: ${p.dir} exists and holds something else than the skill "${p.skill.name}"; nothing was written (--force replaces it)`,
      ),
    };
  const lines: string[] = [];
  for (const { files, dir, state } of plans) {
    if (state === 'same') {
      lines.push(`unchanged ${dir}`);
      continue;
    }
    if (state === 'different') await rm(dir, { recursive: true, force: true });
    for (const [path, bytes] of files) {
      const target = join(dir, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes, { flag: 'wx' });
      lines.push(`wrote ${target} (${bytes.length} bytes)`);
    }
  }
  return { ok: true, lines };
}

/**
 * `absent` (or an empty folder), `same` (exactly the skill's files, byte for byte), or `different`
 * (anything else, a symbolic link or a file in its place included).
 */
async function folderState(
  dir: string,
  files: ReadonlyMap<string, Buffer>,
): Promise<'absent' | 'same' | 'different'> {
  const info = await lstat(dir).catch(() => undefined);
  if (info === undefined) return 'absent';
  if (!info.isDirectory()) return 'different';
  const found = await listFiles(dir);
  if (found === undefined) return 'different';
  if (found.length === 0) return 'absent';
  if (found.length !== files.size) return 'different';
  for (const path of found) {
    const expected = files.get(path);
    if (expected === undefined) return 'different';
    const actual = await readFile(join(dir, path)).catch(() => undefined);
    if (actual === undefined || !actual.equals(expected)) return 'different';
  }
  return 'same';
}

/** The regular files under a folder, relative and with `/`; undefined if it holds anything else. */
async function listFiles(dir: string): Promise<string[] | undefined> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    if (!entry.isFile()) return undefined;
    files.push(relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'));
  }
  return files;
}
