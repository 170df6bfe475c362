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
  const quote = (text: string | undefined) =>
    text === undefined
      ? 'none'
      : JSON.stringify(text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text);
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
