/**
 * What a client can see change between two catalogs, per category, by comparing descriptors. A
 * resource's `size` is left out: a file edited in place is a resources/updated for its subscribers,
 * not a change of the list.
 */
import type { Catalog, ListCategory } from './types.js';

export interface CategoryChange {
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  /** Lists are served in manifest order, so a new order is a visible change too. */
  readonly reordered: boolean;
}

export type CatalogDiff = ReadonlyMap<ListCategory, CategoryChange>;

export function diffCatalogs(before: Catalog, after: Catalog): CatalogDiff {
  const diff = new Map<ListCategory, CategoryChange>();
  const compare = (
    category: ListCategory,
    a: ReadonlyMap<string, string>,
    b: ReadonlyMap<string, string>,
  ) => {
    let added = 0;
    let removed = 0;
    let changed = 0;
    for (const [key, fingerprint] of b) {
      const old = a.get(key);
      if (old === undefined) added++;
      else if (old !== fingerprint) changed++;
    }
    for (const key of a.keys()) if (!b.has(key)) removed++;
    const order = [...b.keys()];
    const reordered = added + removed === 0 && [...a.keys()].some((key, i) => key !== order[i]);
    if (added + removed + changed > 0 || reordered)
      diff.set(category, { added, removed, changed, reordered });
  };
  compare('tools', fingerprints(before.tools), fingerprints(after.tools));
  compare('prompts', fingerprints(before.prompts), fingerprints(after.prompts));
  compare('resources', resourceFingerprints(before), resourceFingerprints(after));
  return diff;
}

/** "+2 tools, -1 prompt, ~1 resource", or "no visible change". */
export function describeDiff(diff: CatalogDiff): string {
  const parts: string[] = [];
  for (const [category, { added, removed, changed, reordered }] of diff) {
    const noun = (n: number) => `${n} ${n === 1 ? category.slice(0, -1) : category}`;
    if (added) parts.push(`+${noun(added)}`);
    if (removed) parts.push(`-${noun(removed)}`);
    if (changed) parts.push(`~${noun(changed)}`);
    if (reordered) parts.push(`${category} reordered`);
  }
  return parts.length ? parts.join(', ') : 'no visible change';
}

function fingerprints(entries: ReadonlyMap<string, { readonly descriptor: object }>): Map<string, string> {
  return new Map([...entries].map(([key, entry]) => [key, JSON.stringify(entry.descriptor)]));
}

function resourceFingerprints(catalog: Catalog): Map<string, string> {
  const map = new Map<string, string>();
  for (const [uri, resource] of catalog.resources) {
    const { size: _size, ...visible } = resource.descriptor;
    map.set(`resource ${uri}`, JSON.stringify(visible));
  }
  for (const template of catalog.templates) {
    map.set(`template ${template.descriptor.uriTemplate}`, JSON.stringify(template.descriptor));
  }
  return map;
}
