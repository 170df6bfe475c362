/**
 * Skills made from a manifest's toolsets (`skills: { fromToolsets }`, `mcp-run skills export`): the
 * generator (skills-generate.ts) fed with a compiled catalog and the manifest's examples, each made a
 * skill in memory (skills.ts) whose bytes are what is served and exported.
 *
 * Compile adds them to the catalog (`addToolsetSkills`): each toolset named gives one skill, a
 * member of that toolset, so its clients see it; other toolsets may list it under `skills:` too.
 * A name no toolset has is TOOLSET_UNKNOWN; a skill whose name another skill has already is
 * URI_DUPLICATE (both would be `skill://<name>/SKILL.md`); one past the extension's 16 MiB (a
 * toolset of thousands of tools) is SKILL_TOO_LARGE.
 *
 * The examples are the manifest's own test cases (docs/testing.md), read where `mcp-run test` finds
 * them: the manifest's `tests:` section, then `tests/*.yaml` beside it (name order) whose
 * `manifest:` is this one (the default `../mcp.yaml`). Only tool calls expected to succeed and find
 * something are examples: a case that checks a refusal (`isError: true`) or that nothing is found
 * (`rows: 0`, often an injection attempt) would teach the model the wrong call. A file or case that
 * is malformed is skipped here; `mcp-run test` is the place that reports it. The test files are
 * watched as part of each generated SKILL.md, so editing a case regenerates the skills; a test file
 * added later is read at the next reload.
 */
import { join, resolve } from 'node:path';
import { type Problem, problems } from '../errors.js';
import type { EntryPath } from '../kinds/contract/kinds.js';
import { parseYaml } from '../manifest/parse.js';
import type { LoadedManifest } from '../manifest/types.js';
import { isObject } from '../util/is-object.js';
import { nodeFsPromises } from '../util/lazy-node.js';
import { suggest } from '../util/suggest.js';
import { inMemorySkill, MAX_SKILL_BYTES } from './skills.js';
import { skillNameOf, type ToolExample, toolsetSkills } from './skills-generate.js';
import type { Catalog, CatalogSkill, ToolsetMembers } from './types.js';

/** Bounds on what is read: test files are the author's, but a stray huge file must not stall a reload. */
const MAX_TEST_FILES = 200;
const MAX_TEST_FILE_BYTES = 1024 * 1024;

export interface SkillsFromToolsets {
  /** Each skill with the toolset it teaches, in skill-name order. */
  readonly skills: readonly { readonly toolset: string; readonly skill: CatalogSkill }[];
  /** The test files their examples were read from (absolute paths). */
  readonly files: readonly string[];
}

/** The skills of these toolsets of a compiled catalog, with their examples. */
export async function skillsFromToolsets(
  manifest: LoadedManifest,
  catalog: Catalog,
  toolsets: readonly string[],
): Promise<SkillsFromToolsets> {
  const { examples, files } = await manifestExamples(manifest);
  const descriptions = new Map<string, string>();
  for (const [name, config] of Object.entries(manifest.data.toolsets ?? {}))
    if (config.description !== undefined) descriptions.set(name, config.description);
  const sources = toolsetSkills(catalog, toolsets, descriptions, examples);
  return { skills: sources.map(({ toolset, skill }) => ({ toolset, skill: inMemorySkill(skill) })), files };
}

/** The names `skills.fromToolsets` will give, for the toolsets' `skills:` lists to name before they exist. */
export function plannedSkillNames(manifest: LoadedManifest): string[] {
  return (manifest.data.skills?.fromToolsets ?? []).map(skillNameOf);
}

/** What compile hands over: how to report, watch, and serve a skill. */
export interface ToolsetSkillsScope {
  readonly report: (path: EntryPath, problem: Problem) => void;
  readonly watch: (path: string, uri: string) => void;
  /** Serves the skill unless one of its URIs is taken (then reports it at `at`). */
  readonly add: (skill: CatalogSkill, at: EntryPath) => void;
}

/**
 * Compile's step: generates the skills `skills.fromToolsets` names from `draft` (the catalog with
 * its tools, resources, prompts, skills and toolsets), serves each, and adds it to its toolset.
 */
export async function addToolsetSkills(
  manifest: LoadedManifest,
  draft: Catalog,
  toolsets: Map<string, ToolsetMembers> | undefined,
  scope: ToolsetSkillsScope,
): Promise<void> {
  const named = manifest.data.skills?.fromToolsets ?? [];
  const known = [...(toolsets?.keys() ?? [])];
  const chosen: string[] = [];
  named.forEach((toolset, i) => {
    if (toolsets?.has(toolset)) chosen.push(toolset);
    else
      scope.report(
        ['skills', 'fromToolsets', i],
        problems.TOOLSET_UNKNOWN(toolset, known, suggest(toolset, known)),
      );
  });
  if (chosen.length === 0) return;
  const made = await skillsFromToolsets(manifest, draft, chosen);
  for (const { toolset, skill } of made.skills) {
    const at: EntryPath = ['skills', 'fromToolsets', named.indexOf(toolset)];
    const bytes = skill.files.reduce((sum, file) => sum + file.size, 0);
    if (bytes > MAX_SKILL_BYTES) {
      scope.report(
        at,
        problems.SKILL_TOO_LARGE(skill.name, `${bytes} bytes, past the 16 MiB a skill may hold`),
      );
      continue;
    }
    scope.add(skill, at);
    if (draft.skills.get(skill.name) !== skill) continue;
    const members = toolsets?.get(toolset);
    if (members !== undefined)
      toolsets?.set(toolset, { ...members, skills: new Set([...members.skills, skill.name]) });
    for (const file of made.files) scope.watch(file, skill.uri);
  }
}

export interface ManifestExamples {
  /** Tool name → examples, in case order. */
  readonly examples: ReadonlyMap<string, readonly ToolExample[]>;
  /** The test files read (absolute paths), to watch. */
  readonly files: readonly string[];
}

export async function manifestExamples(manifest: LoadedManifest): Promise<ManifestExamples> {
  const examples = new Map<string, ToolExample[]>();
  const add = (cases: unknown) => {
    if (!Array.isArray(cases)) return;
    for (const raw of cases) {
      const example = exampleOf(raw);
      if (example === undefined) continue;
      const list = examples.get(example.tool) ?? [];
      list.push({ title: example.title, args: example.args });
      examples.set(example.tool, list);
    }
  };
  add(manifest.data.tests);
  const files = await testFiles(manifest.baseDir);
  for (const file of files) {
    const data = await readCases(file);
    if (data === undefined) continue;
    const target = typeof data.manifest === 'string' ? data.manifest : '../mcp.yaml';
    if (resolve(manifest.baseDir, 'tests', target) !== manifest.file) continue;
    add(data.tests);
  }
  return { examples, files };
}

function exampleOf(
  raw: unknown,
): { tool: string; title: string; args: Readonly<Record<string, unknown>> } | undefined {
  if (!isObject(raw) || typeof raw.call !== 'string' || raw.call === '') return undefined;
  const args = raw.args ?? {};
  if (!isObject(args)) return undefined;
  if (isObject(raw.expect) && (raw.expect.isError === true || raw.expect.rows === 0)) return undefined;
  const title = typeof raw.name === 'string' ? raw.name : `call ${raw.call}`;
  return { tool: raw.call, title, args };
}

async function testFiles(baseDir: string): Promise<string[]> {
  const folder = join(baseDir, 'tests');
  const names = await nodeFsPromises()
    .readdir(folder)
    .catch(() => [] as string[]);
  return names
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .slice(0, MAX_TEST_FILES)
    .map((n) => join(folder, n));
}

async function readCases(file: string): Promise<Record<string, unknown> | undefined> {
  const info = await nodeFsPromises()
    .stat(file)
    .catch(() => undefined);
  if (info === undefined || !info.isFile() || info.size > MAX_TEST_FILE_BYTES) return undefined;
  const text = await nodeFsPromises()
    .readFile(file, 'utf8')
    .catch(() => undefined);
  if (text === undefined) return undefined;
  const { data } = parseYaml(text);
  return isObject(data) ? data : undefined;
}
