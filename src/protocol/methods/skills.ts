/**
 * The skills extension (io.modelcontextprotocol/skills, SEP-2640; docs/skills.md): `skills/list`
 * and `skills/get`, which send each skill's entry (its SKILL.md URI, its frontmatter verbatim, and
 * every file with its size and digest), and `resources/directory/read` when the manifest's
 * `skills.directoryRead` is on. The files themselves are read by `resources/read` (resources.ts).
 *
 * The extension is declared (lifecycle.ts) only by a catalog with a `skills:` section; without
 * one these methods are unknown (-32601), as the extension lets a server that did not declare it
 * answer. A skill the caller's scopes do not reach (the OAuth policy of its SKILL.md URI) is left
 * out of the list and not found by get, as a resource is.
 */
import { type SkillEntry, skillDirectory, skillEntry, skillFileOf, skillOf } from '../../catalog/skills.js';
import type { Catalog, CatalogSkill } from '../../catalog/types.js';
import type { MethodSpec } from '../context.js';
import { ErrorCode, invalidParams, ProtocolError } from '../jsonrpc.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import { requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The extension's settings as `capabilities.extensions` carries them, inline under its identifier. */
export function skillsCapability(catalog: Catalog): Record<string, object> {
  const settings = catalog.skillsSettings;
  if (settings === undefined) return {};
  return { [SKILLS_EXTENSION]: settings.directoryRead ? { directoryRead: true } : {} };
}

function requireExtension(scope: RequestScope, method: string): void {
  if (scope.catalog.skillsSettings === undefined)
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (this server serves no skills)`,
    );
}

function pageSizeOf(catalog: Catalog, length: number): number {
  return Math.max(1, Math.floor(catalog.skillsSettings?.pageSize ?? catalog.pageSize) || length || 1);
}

/** The skills this caller may see: all, or those whose SKILL.md its scopes reach. */
function visibleSkills(scope: RequestScope): CatalogSkill[] {
  const all = [...scope.catalog.skills.values()];
  const { access } = scope;
  return access === undefined ? all : all.filter((skill) => access.allows('resources', skill.uri));
}

/** One page of entries; an entry is whole on its page (never split), pageSize entries a page. */
function listSkills(scope: RequestScope): object {
  requireExtension(scope, 'skills/list');
  const skills = visibleSkills(scope);
  const offset = decodeCursor(scope.params.cursor, skills.length);
  const size = pageSizeOf(scope.catalog, skills.length);
  const end = offset + size;
  const page: SkillEntry[] = skills.slice(offset, end).map(skillEntry);
  return end < skills.length ? { skills: page, nextCursor: encodeCursor(end) } : { skills: page };
}

function getSkill(scope: RequestScope): object {
  requireExtension(scope, 'skills/get');
  const uri = requireString(scope.params, 'uri', 'skills/get');
  const skill = skillOf(scope.catalog.skills, uri);
  const reachable = scope.access === undefined || scope.access.allows('resources', uri);
  if (skill === undefined || skill.uri !== uri || !reachable)
    throw invalidParams(`No skill is served at ${uri}`, { uri });
  return { skill: skillEntry(skill) };
}

/** The direct children of a skill directory, paged like resources/list. */
function readDirectory(scope: RequestScope): object {
  if (scope.catalog.skillsSettings?.directoryRead !== true)
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      'Method not found: resources/directory/read (this server does not declare directoryRead)',
    );
  const uri = requireString(scope.params, 'uri', 'resources/directory/read');
  const skill = skillOf(scope.catalog.skills, uri);
  const reachable = skill !== undefined && (scope.access?.allows('resources', skill.uri) ?? true);
  const children = reachable ? skillDirectory(scope.catalog.skills, uri) : undefined;
  if (children === undefined) {
    const what =
      reachable && skillFileOf(scope.catalog.skills, uri) !== undefined
        ? 'is not a directory resource'
        : 'is not a served directory';
    throw invalidParams(`${uri} ${what}`, { uri });
  }
  const offset = decodeCursor(scope.params.cursor, children.length);
  const size = pageSizeOf(scope.catalog, children.length);
  const end = offset + size;
  const resources = children.slice(offset, end);
  return end < children.length ? { resources, nextCursor: encodeCursor(end) } : { resources };
}

export const skillMethods: Record<string, MethodSpec> = {
  'skills/list': { era: 'both', cacheable: true, handle: listSkills },
  'skills/get': { era: 'both', cacheable: true, handle: getSkill },
  'resources/directory/read': { era: 'both', cacheable: true, handle: readDirectory },
};
