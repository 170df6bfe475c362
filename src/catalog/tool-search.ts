/**
 * Tool search for catalogs served in search mode (disclosure.ts): a full-text index of one catalog
 * view's tools, built on first use and kept with that catalog object (a reload makes a new catalog,
 * so the index never outlives what it describes).
 *
 * minisearch ranks: BM25+ with per-field boosts, prefix and fuzzy terms, no dependencies and about
 * 30 KB, loaded only when a catalog is first searched. The words go through search-terms.ts (split,
 * stemmed, synonym groups) on both sides. Fields, by weight: the name and the title say what a tool
 * is; the description's first sentence says it again; the group and the HTTP path place it; the rest
 * of the description and the parameters (names and descriptions) only add evidence.
 */
import type { default as MiniSearchType } from 'minisearch';
import { isGroupTerm, processTerm, tokenize } from './search-terms.js';
import type { Catalog, CatalogTool, JsonSchema } from './types.js';

/** What a tool is indexed by. */
interface ToolDocument {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly summary: string;
  readonly description: string;
  readonly params: string;
  readonly group: string;
  readonly path: string;
}

const BOOST = { name: 3, title: 3, summary: 2, group: 1.5, path: 1, description: 0.5, params: 0.4 };
/** A synonym group's term counts less than the word itself. */
const GROUP_TERM_WEIGHT = 0.5;

export interface SearchHit {
  readonly name: string;
  readonly score: number;
}

/** A catalog's search: `search` answers the best tools for a request, best first. */
export interface ToolIndex {
  search(query: string, limit: number, sees?: (name: string) => boolean): SearchHit[];
}

const INDEXES = new WeakMap<Catalog, Promise<ToolIndex>>();

/** The index of `catalog`'s tools, built on first use (lazily importing minisearch). */
export function toolIndex(catalog: Catalog): Promise<ToolIndex> {
  let index = INDEXES.get(catalog);
  if (index === undefined) {
    index = buildIndex(catalog);
    INDEXES.set(catalog, index);
  }
  return index;
}

async function buildIndex(catalog: Catalog): Promise<ToolIndex> {
  const { default: MiniSearch } = await import('minisearch');
  const search: MiniSearchType<ToolDocument> = new MiniSearch<ToolDocument>({
    fields: ['name', 'title', 'summary', 'description', 'params', 'group', 'path'],
    tokenize,
    processTerm,
    searchOptions: {
      boost: BOOST,
      // Typos and word forms the stemmer misses, on longer words only: short ones would match noise.
      fuzzy: (term) => (isGroupTerm(term) || term.length < 6 ? false : 0.15),
      prefix: (term) => !isGroupTerm(term) && term.length >= 4,
      boostTerm: (term) => (isGroupTerm(term) ? GROUP_TERM_WEIGHT : 1),
      weights: { fuzzy: 0.3, prefix: 0.4 },
    },
  });
  const documents = [...catalog.tools.values()].map((tool) => documentOf(tool, catalog));
  search.addAll(documents);
  const leading = new Map(documents.map((d) => [d.id, leadingTerms(d.title || d.summary)]));
  const titles = new Map(documents.map((d) => [d.id, wordsKey(queryWords(d.title || d.summary))]));
  return {
    search(request, limit, sees) {
      const query = boundedQuery(request);
      const words = queryWords(query);
      const key = wordsKey(words);
      const hits: SearchHit[] = [];
      for (const result of search.search(query)) {
        const name = String(result.id);
        if (sees !== undefined && !sees(name)) continue;
        const matched = new Set(result.queryTerms);
        const covered = words.filter((terms) => terms.some((t) => matched.has(t))).length;
        const coverage = words.length === 0 ? 1 : covered / words.length;
        // Titles read "Verb an object": a request that starts with the same verb (or a synonym)
        // asks for that action, not for another on the same object.
        const verb = words[0]?.some((t) => leading.get(name)?.has(t)) ? VERB_BOOST : 1;
        // The request is the title itself, but for common words: nothing answers it better.
        const exact = titles.get(name) === key ? EXACT_BOOST : 1;
        hits.push({ name, score: result.score * coverage * coverage * verb * exact });
      }
      hits.sort((a, b) => b.score - a.score);
      return hits.slice(0, limit);
    },
  };
}

/** A request is read up to this many characters… */
const QUERY_CHARS = 200;
/** …and this many distinct words: a request says what it wants in a sentence. */
const QUERY_WORDS = 16;

/**
 * The request as it is searched: its first characters, each word once, at most QUERY_WORDS of them.
 * Every word is a lookup over the whole index (with its prefix and fuzzy terms), so a caller that
 * repeats a word, or sends a long text, would otherwise buy that much work per call.
 */
export function boundedQuery(request: string): string {
  const words = new Map<string, string>();
  for (const word of tokenize(request.slice(0, QUERY_CHARS))) {
    if (words.size === QUERY_WORDS) break;
    const key = word.toLowerCase();
    if (!words.has(key)) words.set(key, word);
  }
  return [...words.values()].join(' ');
}

/** How much a title whose first word is the request's first word counts more. */
const VERB_BOOST = 1.5;

/** How much a title that says just what the request says counts more. */
const EXACT_BOOST = 2;

/** A request's or a title's words (their stems) in order, as one comparable key. */
const wordsKey = (words: readonly string[][]): string => words.map((terms) => terms[0]).join(' ');

/** Each word of a request as its terms (stem and synonym group); words with none left out. */
function queryWords(query: string): string[][] {
  return tokenize(query)
    .map(processTerm)
    .filter((terms) => terms !== null);
}

/** The terms of a title's first word. */
function leadingTerms(title: string): ReadonlySet<string> {
  const [first] = tokenize(title);
  return new Set(first === undefined ? [] : (processTerm(first) ?? []));
}

function documentOf(tool: CatalogTool, catalog: Catalog): ToolDocument {
  const { name, title, description = '', inputSchema } = tool.descriptor;
  const place = catalog.groups?.get(name);
  const [summary = '', ...rest] = sentences(description);
  return {
    id: name,
    name,
    title: title ?? '',
    summary,
    description: rest.join(' '),
    params: parameterText(inputSchema),
    group: place?.group ?? '',
    path: place?.path ?? '',
  };
}

/** The description's first sentence, then the rest (markdown links reduced to their text). */
function sentences(text: string): string[] {
  const plain = text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  const end = plain.search(/[.!?](\s|$)/);
  return end < 0 ? [plain] : [plain.slice(0, end + 1), plain.slice(end + 1)];
}

/** The top-level parameters' names and descriptions. */
function parameterText(schema: JsonSchema): string {
  const properties = (schema as { properties?: Record<string, { description?: unknown }> }).properties;
  if (properties === undefined) return '';
  return Object.entries(properties)
    .map(([name, p]) => `${name} ${typeof p?.description === 'string' ? p.description.slice(0, 200) : ''}`)
    .join(' ');
}
