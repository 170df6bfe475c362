/**
 * Skills (the skills extension, io.modelcontextprotocol/skills; docs/skills.md): the rules every
 * skill meets whatever made it, and the skills made in memory (generated from the manifest).
 * Folder skills are read from disk by skill-folders.ts.
 *
 * A skill is `skill://<name>/…`: one path segment, the skill's name, then each file's path. The
 * extension allows a longer prefix; mcp-run serves every skill at the top, so a name is unique in
 * the server and the URI of its SKILL.md names it.
 */
import { createHash } from 'node:crypto';
import { mimeFromPath } from '../kinds/shared/mime.js';
import type { CatalogSkill, SkillFile } from './types.js';

/** The Agent Skills naming rule: 1-64 lowercase letters, digits and hyphens, no leading, trailing or double hyphen. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The extension's limits per skill: entries in `resources` (SKILL.md included), and their total bytes. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** The `_meta` key prefix the extension reserves on skill resources. */
export const SKILL_META_PREFIX = 'io.modelcontextprotocol.skills/';

/** Frontmatter `metadata` keys under this prefix are reserved for MCP extensions. */
export const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';

export const SKILL_FILE = 'SKILL.md';

/** `sha256:` and the lowercase hex digest of the raw bytes, as skill entries carry it. */
export function skillDigest(content: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

export function skillUri(name: string, path: string = SKILL_FILE): string {
  return `skill://${name}/${path}`;
}

/** The skill's root directory resource: its SKILL.md URI without `/SKILL.md`. */
export function skillRoot(skill: CatalogSkill): string {
  return `skill://${skill.name}`;
}

/** What a file is served as: the type of its extension, text/markdown for SKILL.md. */
export function skillMimeType(path: string): string {
  return mimeFromPath(path) ?? 'application/octet-stream';
}

/** Why a name breaks the naming rule, or undefined when it keeps it. */
export function skillNameProblem(name: string): string | undefined {
  if (SKILL_NAME.test(name)) return undefined;
  return 'a skill name is 1-64 lowercase letters, digits and hyphens, with no leading, trailing or double hyphen';
}

/** A skill made in memory: its name and description, and its files' text by path (`SKILL.md`: the body). */
export interface InMemorySkillSource {
  readonly name: string;
  readonly description: string;
  /**
   * Each file's text by its `/`-separated path. `SKILL.md` is the body after the frontmatter, which
   * is written from `name`, `description` and `metadata`; it may be absent (an empty body).
   */
  readonly files: ReadonlyMap<string, string>;
  /** Extra frontmatter `metadata` (string values), e.g. `{ generator: mcp-run }`. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/**
 * A skill from text in memory (skills generated from toolsets). Its SKILL.md begins with YAML
 * frontmatter written from `name`, `description` and `metadata` (each value a JSON string, which
 * is YAML too), so the entry's frontmatter and the file's are the same by construction. Throws on
 * a name that breaks the naming rule, an empty description, or a path that leaves the skill.
 */
export function inMemorySkill(source: InMemorySkillSource): CatalogSkill {
  const { name, description, metadata } = source;
  const nameProblem = skillNameProblem(name);
  if (nameProblem !== undefined) throw new Error(`skill ${JSON.stringify(name)}: ${nameProblem}`);
  if (description.trim() === '') throw new Error(`skill ${name}: the description is empty`);
  const frontmatter: Record<string, unknown> = { name, description };
  if (metadata !== undefined && Object.keys(metadata).length > 0) frontmatter.metadata = { ...metadata };
  const head = [`name: ${JSON.stringify(name)}`, `description: ${JSON.stringify(description)}`];
  if (frontmatter.metadata !== undefined) {
    head.push('metadata:');
    for (const [key, value] of Object.entries(metadata ?? {}))
      head.push(`  ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  }
  const body = source.files.get(SKILL_FILE) ?? '';
  const texts = new Map<string, string>([[SKILL_FILE, `---\n${head.join('\n')}\n---\n\n${body}`]]);
  for (const [path, text] of source.files) {
    if (path === SKILL_FILE) continue;
    if (!isPlainRelative(path))
      throw new Error(`skill ${name}: ${JSON.stringify(path)} is not a path inside it`);
    texts.set(path, text);
  }
  const files = [...texts].map(([path, text]) => textFile(name, path, text));
  return { name, description, uri: skillUri(name), frontmatter, files: sortFiles(files) };
}

/** A `/`-separated relative path with no empty, `.` or `..` segment. */
export function isPlainRelative(path: string): boolean {
  return (
    path.length > 0 &&
    !path.includes('\\') &&
    path.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
  );
}

function textFile(name: string, path: string, text: string): SkillFile {
  const bytes = Buffer.from(text, 'utf8');
  return {
    path,
    uri: skillUri(name, path),
    size: bytes.length,
    digest: skillDigest(bytes),
    mimeType: skillMimeType(path),
    read: () => Promise.resolve(text),
  };
}

/** SKILL.md first, then by path (code-unit order, the same on every platform). */
export function sortFiles(files: readonly SkillFile[]): SkillFile[] {
  return [...files].sort((a, b) =>
    a.path === SKILL_FILE ? -1 : b.path === SKILL_FILE ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
}
