/**
 * Skills (the skills extension, io.modelcontextprotocol/skills; docs/skills.md): the rules every
 * skill meets whatever made it, and the skills made in memory (generated from the manifest).
 * Folder skills are read from disk by skill-folders.ts.
 *
 * A skill is `skill://<name>/…`: one path segment, the skill's name, then each file's path. The
 * extension allows a longer prefix; mcp-run serves every skill at the top, so a name is unique in
 * the server and the URI of its SKILL.md names it.
 */
import { mimeFromPath } from '../kinds/shared/mime.js';
import { nodeCrypto } from '../util/lazy-node.js';
import type { CatalogSkill, ResourceDescriptor, SkillFile } from './types.js';

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
  return `sha256:${nodeCrypto().createHash('sha256').update(content).digest('hex')}`;
}

/** `skill://<name>/<path>`, each segment of the path percent-encoded. */
export function skillUri(name: string, path: string = SKILL_FILE): string {
  return `skill://${name}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** The file path a URI's path part stands for, or undefined when it does not decode. */
function decodePath(encoded: string): string | undefined {
  try {
    return encoded.split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
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

/** A skill's entry as skills/list and skills/get send it: its URI, frontmatter, and every file. */
export interface SkillEntry {
  readonly uri: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly resources: readonly { readonly uri: string; readonly digest: string; readonly size: number }[];
}

const entries = new WeakMap<CatalogSkill, SkillEntry>();

/** The skill's entry, made once per skill (a catalog's skills never change). */
export function skillEntry(skill: CatalogSkill): SkillEntry {
  let entry = entries.get(skill);
  if (entry === undefined) {
    entry = {
      uri: skill.uri,
      frontmatter: skill.frontmatter,
      resources: skill.files.map(({ uri, digest, size }) => ({ uri, digest, size })),
    };
    entries.set(skill, entry);
  }
  return entry;
}

/** The SKILL.md as resources/list shows it: named and described by its frontmatter. */
export function skillResource(skill: CatalogSkill): ResourceDescriptor {
  const main = skill.files.find((f) => f.path === SKILL_FILE);
  return {
    uri: skill.uri,
    name: skill.name,
    description: skill.description,
    mimeType: 'text/markdown',
    ...(main !== undefined && { size: main.size }),
  };
}

/** The skill a `skill://<name>/…` URI (or the root `skill://<name>`) is under, if served. */
export function skillOf(skills: ReadonlyMap<string, CatalogSkill>, uri: string): CatalogSkill | undefined {
  if (!uri.startsWith('skill://')) return undefined;
  const rest = uri.slice('skill://'.length);
  const slash = rest.indexOf('/');
  return skills.get(slash < 0 ? rest : rest.slice(0, slash));
}

/** The served file at `uri`, if any. */
export function skillFileOf(skills: ReadonlyMap<string, CatalogSkill>, uri: string): SkillFile | undefined {
  return skillOf(skills, uri)?.files.find((f) => f.uri === uri);
}

/** One child of a skill directory, as resources/directory/read lists it. */
export interface DirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  readonly size?: number;
}

export const DIRECTORY_MIME = 'inode/directory';

/**
 * The direct children of the directory at `uri` (a skill's root or a folder in it): files with
 * their type and size, folders as `inode/directory`, by name. Undefined when `uri` is no directory
 * of a served skill (a file, or nothing).
 */
export function skillDirectory(
  skills: ReadonlyMap<string, CatalogSkill>,
  uri: string,
): readonly DirectoryChild[] | undefined {
  const skill = skillOf(skills, uri);
  if (skill === undefined) return undefined;
  const root = `skill://${skill.name}`;
  if (uri !== root && !uri.startsWith(`${root}/`)) return undefined;
  const folder = uri === root ? '' : decodePath(uri.slice(root.length + 1));
  if (folder === undefined || (uri !== root && !isPlainRelative(folder))) return undefined;
  const prefix = folder === '' ? '' : `${folder}/`;
  if (prefix !== '' && !skill.files.some((f) => f.path.startsWith(prefix))) return undefined;
  const children = new Map<string, DirectoryChild>();
  for (const file of skill.files) {
    if (!file.path.startsWith(prefix)) continue;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    const name = slash < 0 ? rest : rest.slice(0, slash);
    if (children.has(name)) continue;
    children.set(
      name,
      slash < 0
        ? { uri: file.uri, name, mimeType: file.mimeType, size: file.size }
        : { uri: skillUri(skill.name, `${prefix}${name}`), name, mimeType: DIRECTORY_MIME },
    );
  }
  return [...children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
