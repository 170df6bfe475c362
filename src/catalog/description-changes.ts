/**
 * A rug pull, said plainly: the served descriptions an upstream changed between two catalogs (a
 * reload its `list_changed` asked for, with the manifest unchanged), for the reloader's warning
 * and its refusal under `descriptionChange: refuse` (docs/upstream-mcp.md).
 */
import type { ContractCategory, ContractChange } from './diff.js';
import type { Catalog } from './types.js';

/** How much of an old or new description a warning quotes. */
const QUOTED_CHARS = 500;

/**
 * The served descriptions that changed, one line each, naming the entry, the old text and the new,
 * quoted as JSON strings (the upstream's text is data: escaped, cut to a bound).
 */
export function descriptionChanges(
  contract: readonly ContractChange[],
  before: Catalog,
  after: Catalog,
): string[] {
  return contract
    .filter((c) => c.change === 'changed' && c.part === 'description' && c.path === undefined)
    .map(
      (c) =>
        `the upstream changed the description of ${c.category} \`${c.name}\`: it was ${quote(
          describedAs(before, c.category, c.name),
        )}, it is now ${quote(describedAs(after, c.category, c.name))}`,
    );
}

function describedAs(catalog: Catalog, category: ContractCategory, name: string): string | undefined {
  if (category === 'tool') return catalog.tools.get(name)?.descriptor.description;
  if (category === 'prompt') return catalog.prompts.get(name)?.descriptor.description;
  if (category === 'resource') return catalog.resources.get(name)?.descriptor.description;
  return catalog.templates.find((t) => t.descriptor.uriTemplate === name)?.descriptor.description;
}

/**
 * The descriptions a source's origin changed that no served change above already shows (the same
 * old and new text): an entry whose description the manifest declares, which clients keep seeing.
 * Reported only, never refused: what clients see did not change.
 */
export function originChanges(before: Catalog, after: Catalog, served: readonly string[]): string[] {
  const out: string[] = [];
  for (const [source, now] of after.described ?? []) {
    const was = before.described?.get(source);
    if (was === undefined) continue;
    for (const [key, text] of now) {
      const old = was.get(key);
      if (old === undefined || old === text) continue;
      const shown = `it was ${quote(old)}, it is now ${quote(text)}`;
      if (served.some((line) => line.endsWith(shown))) continue;
      const [category, ...name] = key.split(' ');
      out.push(
        `source \`${source}\` changed the description of its ${category} \`${name.join(' ')}\` (clients keep the manifest's): ${shown}`,
      );
    }
  }
  return out;
}

function quote(text: string | undefined): string {
  if (text === undefined) return 'none';
  return JSON.stringify(text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text);
}
