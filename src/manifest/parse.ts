/**
 * Step 1 of the pipeline: YAML text → plain data, with a map back to positions. Syntax errors
 * stop the pipeline: nothing after them would point at the right place. Plain YAML takes the fast
 * path (fast-parse.ts; the document is built only if a message needs a position); anything else,
 * and every text with an error, goes through `yaml`, whose messages are the ones reported.
 */
import type { Document } from 'yaml';
import { problems } from '../errors.js';
import { fastParse, MAX_ALIAS_COUNT } from './fast-parse.js';
import type { Finding } from './finding.js';
import { SourceMap } from './locate.js';
import { yamlLib } from './yaml-lib.js';

export { MAX_ALIAS_COUNT };

export interface Parsed {
  readonly source: SourceMap;
  /** The plain data, or undefined when the YAML has errors. */
  readonly data?: unknown;
  /** YAML errors with their offsets (positions are added by the caller). */
  readonly errors: readonly YamlFinding[];
}

export interface YamlFinding extends Finding {
  readonly offset?: number;
}

export function parseYaml(text: string): Parsed {
  const fast = fastParse(text);
  if (fast) return { source: new SourceMap(text), data: ownStrings(fast.data), errors: [] };
  const { LineCounter, parseDocument } = yamlLib();
  const lines = new LineCounter();
  // prettyErrors off: the message stays one sentence; the code frame is ours. Duplicate keys are
  // found by our own pass (below): yaml's check compares every key with every other, which was a
  // quarter of the start-up of a 1,000-tool manifest.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const source = new SourceMap(text, { doc, lines });
  const errors: YamlFinding[] = [];
  // Warnings (an unknown tag, a bad directive) are reported too: in a manifest they are mistakes.
  for (const e of [...doc.errors, ...doc.warnings]) {
    errors.push({ path: [], problem: problems.MANIFEST_YAML(lowerFirst(e.message)), offset: e.pos[0] });
  }
  for (const offset of duplicateKeys(doc)) {
    const path = source.keyPathAt(offset);
    const key = path?.at(-1);
    const reason = `duplicate key ${JSON.stringify(String(key ?? ''))}; keys in a mapping must be unique`;
    errors.push({ path: path ?? [], problem: problems.MANIFEST_YAML(reason), offset });
  }
  errors.push(...unresolvedAliases(doc));
  if (errors.length) return { source, errors };
  try {
    return { source, data: ownStrings(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {}), errors };
  } catch (e) {
    const reason =
      e instanceof ReferenceError && /alias count/i.test(e.message)
        ? `too many aliases (more than ${MAX_ALIAS_COUNT} expanded nodes); write the values out instead`
        : lowerFirst((e as Error).message);
    return { source, errors: [{ path: [], problem: problems.MANIFEST_YAML(reason) }] };
  }
}

/**
 * The data with every string value a copy of its own. Parsers cut scalars out of the text, and V8
 * keeps a cut (a sliced string, 13 characters or more) pointing into the whole text: one title kept
 * by the catalog kept the whole manifest (megabytes for an imported description) for the life of
 * the server. A copy holds only its own characters.
 */
function ownStrings<T>(data: T): T {
  const seen = new Set<object>();
  const own = (value: unknown): unknown => {
    if (typeof value === 'string') return value.length < 13 ? value : ` ${value}`.slice(1);
    if (value === null || typeof value !== 'object' || seen.has(value)) return value;
    seen.add(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = own(value[i]);
    } else {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const v = record[key];
        if (typeof v === 'string' ? v.length >= 13 : v !== null && typeof v === 'object')
          record[key] = own(v);
      }
    }
    return value;
  };
  return own(data) as T;
}

/** The offset of every key that repeats an earlier key of the same mapping, in one pass per mapping. */
function duplicateKeys(doc: Document): number[] {
  const { isScalar, visit } = yamlLib();
  const offsets: number[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) offsets.push((isScalar(pair.key) && pair.key.range?.[0]) || 0);
        seen.add(key);
      }
    },
  });
  return offsets;
}

/**
 * yaml reports an alias to an unknown anchor only when converting, without a position; find it here.
 * One walk in document order: an alias resolves to an anchor set before it (or on a node that
 * contains it), so the anchors seen so far are all it can name. (`Alias.resolve` walks the whole
 * document once per alias: 26 s of a 3.6 MB manifest with 300 aliases.)
 */
function unresolvedAliases(doc: Document): YamlFinding[] {
  const { isAlias, visit } = yamlLib();
  const found: YamlFinding[] = [];
  const anchors = new Set<string>();
  visit(doc, {
    Node(_, node) {
      if (isAlias(node)) {
        if (!anchors.has(node.source)) {
          const reason = `unknown anchor ${JSON.stringify(node.source)}; define &${node.source} before using *${node.source}`;
          found.push({ path: [], problem: problems.MANIFEST_YAML(reason), offset: node.range?.[0] });
        }
      } else if (node.anchor) anchors.add(node.anchor);
    },
  });
  return found;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
