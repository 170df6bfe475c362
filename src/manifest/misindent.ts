/**
 * A key one indentation level off is still valid YAML: it lands in the mapping next to the one it
 * belongs to. Validation then sees two problems, neither where the mistake is: `sql:` under `tools:`
 * is "a tool that is not a mapping" and its tool "lacks sql". Here such a pair becomes one error at
 * the key itself, saying where it belongs: a key that its neighbour just above (one level deeper) or
 * an enclosing entry (one level up) takes, and lacks, was meant to be there.
 */
import { problems } from '../errors.js';
import { describeOwner } from './describe.js';
import { envelopeSchema } from './envelope.js';
import { type Finding, isPlainObject } from './finding.js';
import { PLAIN_KEYWORDS } from './property-schemas.js';
import { ENTRY_SECTIONS, type EntrySection, type KindSchemas, type ManifestPath } from './types.js';

/** The findings with each misplaced key's pair of findings replaced by one MANIFEST_MISINDENTED. */
export function explainMisindents(
  findings: readonly Finding[],
  data: unknown,
  kinds: KindSchemas,
): Finding[] {
  const owed = new Set<string>();
  const out = findings.map((f) => {
    if (!isMisplacedSymptom(f)) return f;
    const key = f.path.at(-1);
    if (typeof key !== 'string') return f;
    const parent = f.path.slice(0, -1);
    const homes = homesOf(data, parent, key, kinds);
    if (homes.length === 0) return f;
    for (const home of homes) owed.add(JSON.stringify([...home, key]));
    const where = homes.map((h) => `under ${describeOwner(h)}`);
    const problem = problems.MANIFEST_MISINDENTED(key, describeOwner(parent), where);
    return { path: f.path, at: 'key' as const, field: key, problem, alsoAt: homes };
  });
  // The field its owner "lacks" is the misplaced key: the error at the key says it all.
  return out.filter(
    (f) => f.problem.code !== 'MANIFEST_MISSING_FIELD' || !owed.has(JSON.stringify([...f.path, f.field])),
  );
}

/** What a key in the wrong mapping looks like to validation: unknown there, or not an entry. */
function isMisplacedSymptom(f: Finding): boolean {
  return (
    f.problem.code === 'MANIFEST_UNKNOWN_FIELD' ||
    (f.problem.code === 'MANIFEST_INVALID_VALUE' && f.problem.message.startsWith('expected a mapping,'))
  );
}

/** Where `key` (found in the mapping at `parent`) would fit, one level deeper or up. */
function homesOf(data: unknown, parent: ManifestPath, key: string, kinds: KindSchemas): ManifestPath[] {
  const mapping = at(data, parent);
  if (!isPlainObject(mapping)) return [];
  const value = mapping[key];
  const homes: ManifestPath[] = [];
  // Indented too little: it follows the keys of the mapping just above it.
  const keys = Object.keys(mapping);
  const above = keys[keys.indexOf(key) - 1];
  if (above !== undefined && takes(data, [...parent, above], key, value, kinds))
    homes.push([...parent, above]);
  // Indented too much: the nearest enclosing mapping that takes it.
  for (let i = parent.length - 1; i >= 0; i--) {
    const outer = parent.slice(0, i);
    if (takes(data, outer, key, value, kinds)) {
      homes.push(outer);
      break;
    }
  }
  return homes;
}

/** Whether the mapping at `path` defines `key` (with a value like `value`) and does not have it yet. */
function takes(data: unknown, path: ManifestPath, key: string, value: unknown, kinds: KindSchemas): boolean {
  const mapping = at(data, path);
  if (!isPlainObject(mapping) || key in mapping) return false;
  const [section, name, field, property, ...deeper] = path;
  const isSection = ENTRY_SECTIONS.includes(section as EntrySection);
  if (path.length === 0) return key in topLevelFields();
  // An entry one level too deep: a mapping with a kind, under the section's other entries.
  if (isSection && path.length === 1) return isPlainObject(value) && typeof value.kind === 'string';
  // A field of `server:` (or another top-level mapping) left at the top level.
  if (path.length === 1) {
    const schema = topLevelFields()[String(section)] as { properties?: object } | undefined;
    return schema?.properties !== undefined && key in schema.properties;
  }
  if (isSection && path.length === 2 && typeof mapping.kind === 'string') {
    const schema = kinds.schema(section as EntrySection, mapping.kind) as { properties?: object } | undefined;
    return schema?.properties !== undefined && key in schema.properties;
  }
  // A keyword of a tool's input property (`description:` meant for the property above it).
  return (
    section === 'tools' &&
    name !== undefined &&
    field === 'input' &&
    property !== undefined &&
    deeper.length === 0 &&
    PLAIN_KEYWORDS.has(key)
  );
}

let topLevel: Record<string, unknown> | undefined;
const topLevelFields = () =>
  (topLevel ??= (envelopeSchema() as { properties: Record<string, unknown> }).properties);

function at(data: unknown, path: ManifestPath): unknown {
  let node = data;
  for (const segment of path) {
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}
