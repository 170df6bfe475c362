/**
 * What a catalog serves, counted as `mcp-run list` shows it: the tools, the resources (the static
 * ones and the live sets, such as a database's tables), the resource templates and the prompts,
 * each with its own word and the plural right, and the skills when there are any. `validate` and
 * the serve banners all say it this way.
 */
import type { Catalog } from '../catalog/types.js';

export const plural = (n: number, word: string, words = `${word}s`): string =>
  `${n} ${n === 1 ? word : words}`;

export async function describeCounts(catalog: Catalog): Promise<string> {
  const uris = new Set(catalog.resources.keys());
  for (const list of catalog.resourceLists ?? []) {
    const listed = await list(AbortSignal.timeout(10_000)).catch(() => []);
    for (const { descriptor } of listed) uris.add(descriptor.uri);
  }
  const counts = [
    plural(catalog.tools.size, 'tool'),
    plural(uris.size, 'resource'),
    plural(catalog.templates.length, 'resource template'),
    plural(catalog.prompts.size, 'prompt'),
  ];
  if (catalog.skills.size > 0) counts.push(plural(catalog.skills.size, 'skill'));
  return counts.join(', ');
}
