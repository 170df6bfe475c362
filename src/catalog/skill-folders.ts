/**
 * Skill folders (`skills: { folders: [...] }`, docs/skills.md): each subfolder of a listed folder
 * that holds a SKILL.md is one skill, named by the folder; a listed folder that holds a SKILL.md
 * itself is one skill too. Every file under the skill's folder is one of its files.
 *
 * Paths are contained as for file resources (kinds/shared/paths.ts): a file or folder whose real
 * path (symlinks followed) leaves the skill's folder is a manifest error, never served; every read
 * resolves the path again and refuses one swapped for a link out since. The extension's rules are
 * checked here, each failure a manifest error: SKILL.md frontmatter with `name` and `description`
 * (at the SKILL.md's own line and column), the name equal to the folder's and keeping the naming
 * rule, at most 512 files and 16 MiB per skill, no reserved `metadata` key.
 *
 * Every file is read once at compile time for its size and digest; the folders and files are
 * watched, so an edit reloads the catalog and the skill's entry carries the new digests.
 */
import { basename, join, resolve } from 'node:path';
import { type Diagnostic, type Problem, problems } from '../errors.js';
import { isTextMime } from '../kinds/shared/mime.js';
import { FileTooLarge, isInside, readInside } from '../kinds/shared/paths.js';
import { codeFrame } from '../manifest/frame.js';
import { yamlLib } from '../manifest/yaml-lib.js';
import { nodeFsPromises } from '../util/lazy-node.js';
import {
  isPlainRelative,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  RESERVED_METADATA_PREFIX,
  SKILL_FILE,
  skillDigest,
  skillMimeType,
  skillNameProblem,
  skillUri,
  sortFiles,
} from './skills.js';
import { type CatalogSkill, ResourceNotFound, type SkillFile } from './types.js';

/** What loading the folders needs of compile: where to report, and what to watch. */
export interface SkillFolderScope {
  readonly baseDir: string;
  /** A problem about `skills.folders[index]` in the manifest. */
  report(index: number, problem: Problem): void;
  /** A problem inside a SKILL.md, already located in that file. */
  reportAt(diagnostic: Diagnostic): void;
  /** Watch a file (with the URI whose content it is) or a folder. */
  watch(path: string, uri?: string): void;
}

const OUTSIDE_HINT =
  'a skill serves only what is inside its folder, symlinks followed: copy the file in, or remove the link';

/** Reads every listed folder's skills, in folder order then by name; reports every problem. */
export async function loadSkillFolders(
  folders: readonly string[],
  scope: SkillFolderScope,
): Promise<CatalogSkill[]> {
  const found: CatalogSkill[] = [];
  const seen = new Map<string, number>();
  for (const [index, folder] of folders.entries()) {
    const root = await realFolder(resolve(scope.baseDir, folder));
    if (root === undefined) {
      scope.report(index, problems.PATH_NOT_FOUND(folder));
      continue;
    }
    scope.watch(root);
    for (const dir of await skillDirs(root)) {
      // A skill folder that is a link resolves inside the listed folder too, as any file of a skill.
      const real = await realFolder(dir);
      if (real === undefined) continue;
      if (!isInside(root, real)) {
        scope.report(index, { ...problems.PATH_OUTSIDE_ROOT(dir, root), hint: OUTSIDE_HINT });
        continue;
      }
      const skill = await loadSkill(dir, index, scope);
      if (skill === undefined) continue;
      const other = seen.get(skill.name);
      if (other !== undefined) {
        scope.report(index, problems.URI_DUPLICATE(skill.uri, `skills.folders[${other}]`));
        continue;
      }
      seen.set(skill.name, index);
      found.push(skill);
    }
  }
  return found;
}

async function realFolder(path: string): Promise<string | undefined> {
  const fs = nodeFsPromises();
  try {
    const real = await fs.realpath(path);
    return (await fs.stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The folder itself when it holds a SKILL.md, else its subfolders that do, by name. */
async function skillDirs(root: string): Promise<string[]> {
  const fs = nodeFsPromises();
  if (await isFile(join(root, SKILL_FILE))) return [root];
  const entries = await fs.readdir(root, { withFileTypes: true });
  const dirs: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(root, entry.name);
    if ((entry.isDirectory() || entry.isSymbolicLink()) && (await isFile(join(path, SKILL_FILE))))
      dirs.push(path);
  }
  return dirs;
}

async function isFile(path: string): Promise<boolean> {
  return nodeFsPromises()
    .stat(path)
    .then(
      (s) => s.isFile(),
      () => false,
    );
}

interface Listed {
  readonly path: string;
  readonly real: string;
}

/** One skill folder: its files contained and counted, its SKILL.md's frontmatter checked. */
async function loadSkill(
  dir: string,
  index: number,
  scope: SkillFolderScope,
): Promise<CatalogSkill | undefined> {
  const folderName = basename(dir);
  const root = await realFolder(dir);
  if (root === undefined) return undefined;
  const listed = await listSkillFiles(root, dir, index, scope);
  if (listed === undefined) return undefined;
  if (listed.length > MAX_SKILL_FILES) {
    scope.report(index, problems.SKILL_TOO_LARGE(folderName, `more than ${MAX_SKILL_FILES} files`));
    return undefined;
  }
  const skillMd = join(root, SKILL_FILE);
  const head = await readSkillFile(root, skillMd, skillMd, MAX_SKILL_BYTES);
  if (!(head instanceof Buffer)) {
    scope.report(
      index,
      head === 'too large'
        ? problems.SKILL_TOO_LARGE(folderName, `a SKILL.md of more than ${MAX_SKILL_BYTES} bytes (16 MiB)`)
        : problems.PATH_NOT_FOUND(join(dir, SKILL_FILE)),
    );
    return undefined;
  }
  const frontmatter = checkFrontmatter(head.toString('utf8'), skillMd, folderName, scope);
  if (frontmatter === undefined) return undefined;
  const name = frontmatter.name as string;
  const files: SkillFile[] = [];
  let total = 0;
  for (const { path, real } of listed) {
    const uri = skillUri(name, path);
    // Each read is capped by what is left of the skill's 16 MiB: memory stays bounded by it.
    const bytes = await readSkillFile(root, real, uri, MAX_SKILL_BYTES - total);
    if (bytes === 'too large') {
      scope.report(
        index,
        problems.SKILL_TOO_LARGE(
          folderName,
          `more than ${MAX_SKILL_BYTES} bytes (16 MiB) in all, counting up to ${path}`,
        ),
      );
      return undefined;
    }
    // Gone since the listing (or a read that hung): not served; the reload its removal causes reads again.
    if (bytes === 'unreadable') continue;
    total += bytes.length;
    scope.watch(real, uri);
    files.push(diskFile(root, real, path, uri, bytes));
  }
  return {
    name,
    description: frontmatter.description as string,
    uri: skillUri(name),
    frontmatter,
    files: sortFiles(files),
  };
}

/** A file's bytes, at most `budget` of them, or why they cannot be served. */
async function readSkillFile(
  root: string,
  real: string,
  uri: string,
  budget: number,
): Promise<Buffer | 'too large' | 'unreadable'> {
  try {
    return (await readInside(root, real, budget, uri)) ?? 'unreadable';
  } catch (err) {
    return err instanceof FileTooLarge ? 'too large' : 'unreadable';
  }
}

/**
 * Every regular file under the skill's folder, its path relative and `/`-separated. A file or
 * folder whose real path leaves the skill (a symlink out) is reported and the skill is not served;
 * dot files (`.git`, an editor's swap file) are left out; a real folder is walked once.
 */
async function listSkillFiles(
  root: string,
  dir: string,
  index: number,
  scope: SkillFolderScope,
): Promise<Listed[] | undefined> {
  const fs = nodeFsPromises();
  const files: Listed[] = [];
  const visited = new Set<string>([root]);
  let outside = false;
  // The skill's folder is watched whole (with its subfolders) by the listed folder's watch.
  const walk = async (real: string, relative: string): Promise<void> => {
    const entries = await fs.readdir(real, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.name.startsWith('.')) continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (!isPlainRelative(path)) continue;
      let target: string;
      try {
        target = await fs.realpath(join(real, entry.name));
      } catch {
        continue; // a dangling link serves nothing
      }
      if (!isInside(root, target)) {
        scope.report(index, {
          ...problems.PATH_OUTSIDE_ROOT(join(dir, ...path.split('/')), dir),
          hint: OUTSIDE_HINT,
        });
        outside = true;
        continue;
      }
      const stat = await fs.stat(target).catch(() => undefined);
      if (stat === undefined) continue; // gone since the listing
      if (stat.isDirectory()) {
        if (visited.has(target)) continue;
        visited.add(target);
        await walk(target, path);
      } else if (stat.isFile()) files.push({ path, real: join(real, entry.name) });
      if (files.length > MAX_SKILL_FILES) return;
    }
  };
  await walk(root, '');
  return outside ? undefined : files;
}

function diskFile(root: string, real: string, path: string, uri: string, bytes: Buffer): SkillFile {
  const guessed = skillMimeType(path);
  const text = isText(guessed, bytes);
  const mimeType = text && guessed === 'application/octet-stream' ? 'text/plain' : guessed;
  return {
    path,
    uri,
    size: bytes.length,
    digest: skillDigest(bytes),
    mimeType,
    async read() {
      const now = await readInside(root, real, MAX_SKILL_BYTES, uri);
      // Gone, or swapped for a link out, since the catalog was built: not found, revealing nothing.
      if (now === undefined) throw new ResourceNotFound(uri);
      return text ? now.toString('utf8') : new Uint8Array(now);
    },
  };
}

/**
 * Text when its type says so and its bytes are UTF-8; a file of unknown type too when its bytes are
 * UTF-8 with no NUL (a script without an extension). Anything else is served as a blob.
 */
function isText(mimeType: string, bytes: Buffer): boolean {
  const known = mimeType !== 'application/octet-stream';
  if (known && !isTextMime(mimeType)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  return known || !bytes.includes(0);
}

/** The frontmatter block: `---` on the first line, then YAML, then `---` on a line of its own. */
const FRONTMATTER = /^(?:\uFEFF)?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * The SKILL.md's frontmatter when it meets the rules; otherwise every problem is reported, each at
 * its line and column in the SKILL.md, and undefined.
 */
function checkFrontmatter(
  text: string,
  file: string,
  folderName: string,
  scope: SkillFolderScope,
): Record<string, unknown> | undefined {
  let failed = false;
  const fail = (offset: number, message: string, hint?: string) => {
    failed = true;
    const { line, col } = positionOf(text, offset);
    scope.reportAt({
      ...problems.SKILL_FRONTMATTER(message, hint),
      file,
      line,
      col,
      frame: codeFrame(text, line, col),
    });
  };
  const match = FRONTMATTER.exec(text);
  if (!match) {
    fail(
      0,
      'SKILL.md does not begin with YAML frontmatter',
      'begin it with ---, then name: and description:, then ---',
    );
    return undefined;
  }
  const start = text.indexOf('\n') + 1; // the frontmatter's first line
  const { parseDocument, isMap, isScalar } = yamlLib();
  const doc = parseDocument(match[1]!, { uniqueKeys: true });
  for (const error of doc.errors)
    fail(start + (error.pos?.[0] ?? 0), `invalid YAML: ${yamlMessage(error.message)}`);
  if (failed) return undefined;
  const contents = doc.contents;
  if (!isMap(contents)) {
    fail(
      start,
      'the frontmatter is not a mapping of fields',
      'write name: and description: on lines of their own',
    );
    return undefined;
  }
  const value = doc.toJS() as Record<string, unknown>;
  const keyOffset = (key: string): number => {
    const pair = contents.items.find((item) => isScalar(item.key) && item.key.value === key);
    const node = (pair?.value ?? pair?.key) as { range?: [number, number, number] } | undefined;
    return start + (node?.range?.[0] ?? 0);
  };
  for (const field of ['name', 'description'] as const) {
    const given = value[field];
    if (given === undefined)
      fail(start, `the frontmatter has no \`${field}\``, `add ${field}: to the frontmatter`);
    else if (typeof given !== 'string' || given.trim() === '')
      fail(keyOffset(field), `\`${field}\` must be a non-empty string`);
  }
  const name = value.name;
  if (typeof name === 'string' && name.trim() !== '') {
    const nameProblem = skillNameProblem(name);
    if (nameProblem !== undefined)
      fail(keyOffset('name'), `the name ${JSON.stringify(name)} is not a skill name`, nameProblem);
    else if (name !== folderName)
      fail(
        keyOffset('name'),
        `the name ${JSON.stringify(name)} differs from the skill's folder ${JSON.stringify(folderName)}`,
        'a skill is named by its folder: rename one so that both are the same',
      );
  }
  const metadata = value.metadata;
  if (typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata))
    for (const key of Object.keys(metadata))
      if (key.startsWith(RESERVED_METADATA_PREFIX))
        fail(
          keyOffset('metadata'),
          `the metadata key ${JSON.stringify(key)} uses the prefix ${RESERVED_METADATA_PREFIX}, reserved for MCP extensions`,
          'name it under a prefix of your own',
        );
  return failed ? undefined : value;
}

/** The yaml package's first line, without its position (relative to the frontmatter, not the file). */
function yamlMessage(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

/** 1-based line and column of a character offset. */
function positionOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  return { line, col: offset - lineStart + 1 };
}
