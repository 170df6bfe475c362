/**
 * Step 1 of the pipeline: YAML text → plain data, with a map back to positions. Syntax errors
 * stop the pipeline: nothing after them would point at the right place. Plain YAML takes the fast
 * path (fast-parse.ts; the document is built only if a message needs a position); anything else,
 * and every text with an error, goes through `yaml`, whose messages are the ones reported. One
 * misplaced line makes `yaml` report two or three errors, the later ones only its own confusion
 * about the same lines: those follow-ons are dropped (withoutFollowOns), the first one is kept.
 */
import type { Document, LineCounter, Node } from 'yaml';
import { problems } from '../errors.js';
import { fastParse, MAX_ALIAS_COUNT, ownString } from './fast-parse.js';
import type { Finding } from './finding.js';
import { SourceMap } from './locate.js';
import { cachedParse } from './parse-cache.js';
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
  // A large text parsed before by this build: its data, read back (parse-cache.ts).
  const cached = cachedParse(text);
  if ('data' in cached) return { source: new SourceMap(text), data: cached.data, errors: [] };
  const fast = fastParse(text);
  if (fast) {
    cached.keep?.(fast.data);
    return { source: new SourceMap(text), data: fast.data, errors: [] };
  }
  const { LineCounter, parseDocument } = yamlLib();
  const lines = new LineCounter();
  // prettyErrors off: the message stays one sentence; the code frame is ours. Duplicate keys are
  // found by our own pass (below): yaml's check compares every key with every other, which was a
  // quarter of the start-up of a 1,000-tool manifest.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const source = new SourceMap(text, { doc, lines });
  const found: YamlError[] = [];
  // Warnings (an unknown tag, a bad directive) are reported too: in a manifest they are mistakes.
  for (const e of [...doc.errors, ...doc.warnings]) {
    found.push({ path: [], reason: lowerFirst(e.message), offset: e.pos[0], end: e.pos[1], code: e.code });
  }
  for (const offset of duplicateKeys(doc)) {
    const path = source.keyPathAt(offset);
    const key = path?.at(-1);
    const reason = `duplicate key ${JSON.stringify(String(key ?? ''))}; keys in a mapping must be unique`;
    found.push({ path: path ?? [], reason, offset });
  }
  found.push(...badAliases(doc));
  const errors = withoutFollowOns(found, lines, text);
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

/** A YAML error before it becomes a finding: where its text ends, and yaml's code for it if yaml found it. */
export interface YamlError {
  readonly path: Finding['path'];
  readonly reason: string;
  readonly offset?: number;
  readonly end?: number;
  readonly code?: string;
}

/**
 * The findings in text order, without follow-ons: a finding that starts on a line an earlier one
 * already covers (from its start line to the last line it or its own follow-ons reach) comes from
 * the same mistake. An over-indented key gives "nested mappings are not allowed in compact
 * mappings" and "implicit keys need to be on a single line" over the same two lines; an
 * under-indented one gives "all mapping items must start at the same column" and then both of those.
 * Mistakes on lines apart are each still reported. When the dropped ones say that a key ran on to a
 * later line, the kept one points at the key on that line: it is where the indentation went wrong.
 */
function withoutFollowOns(found: readonly YamlError[], lines: LineCounter, text: string): YamlFinding[] {
  const lineOf = (offset: number) => lines.linePos(offset).line;
  const sorted = [...found].sort((a, b) => (a.offset ?? -1) - (b.offset ?? -1));
  const kept: YamlError[] = [];
  const hints = new Map<YamlError, string>();
  /** Where the over-indented key itself starts: the error points there, not at the line above. */
  const keyAt = new Map<YamlError, number>();
  let coveredTo = -1;
  for (const error of sorted) {
    if (error.offset === undefined) {
      kept.push(error);
      continue;
    }
    const start = lineOf(error.offset);
    const end = Math.max(start, lineOf(error.end ?? error.offset));
    const cause = kept.at(-1);
    if (cause && start <= coveredTo) {
      if (error.code === 'MULTILINE_IMPLICIT_KEY' && cause.code === 'BLOCK_AS_IMPLICIT_KEY' && end > start) {
        const hint = `this key may be misindented: it is deeper than the key on line ${lineOf(cause.offset!)}; keys of one mapping start at the same column`;
        hints.set(cause, hint);
        const start = lines.lineStarts[end - 1]!;
        keyAt.set(cause, start + (/^ */.exec(text.slice(start))?.[0].length ?? 0));
      }
      coveredTo = Math.max(coveredTo, end);
      continue;
    }
    kept.push(error);
    coveredTo = end;
  }
  return kept.map((e) => ({
    path: e.path,
    problem: problems.MANIFEST_YAML(e.reason, hints.get(e)),
    offset: keyAt.get(e) ?? e.offset,
  }));
}

/** The data with every string value a copy of its own (fast-parse.ts `ownString` says why). */
function ownStrings<T>(data: T): T {
  const seen = new Set<object>();
  const own = (value: unknown): unknown => {
    if (typeof value === 'string') return ownString(value);
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
 * yaml reports an alias to an unknown anchor only when converting, without a position, and makes an
 * alias inside the node it names into a cyclic object that no walk of the manifest can end; find
 * both here. One walk in document order: an alias resolves to the last node with its anchor set
 * before it (or on a node that contains it), so the anchors seen so far are all it can name, and
 * it is a cycle when that node is one of its ancestors. (`Alias.resolve` walks the whole document
 * once per alias: 26 s of a 3.6 MB manifest with 300 aliases.)
 */
export function badAliases(doc: Document): YamlError[] {
  const { isAlias, visit } = yamlLib();
  const found: YamlError[] = [];
  const anchors = new Map<string, Node>();
  visit(doc, {
    Node(_, node, ancestors) {
      if (isAlias(node)) {
        const name = node.source;
        const target = anchors.get(name);
        if (target === undefined) {
          const reason = `unknown anchor ${JSON.stringify(name)}; define &${name} before using *${name}`;
          found.push({ path: [], reason, offset: node.range?.[0] });
        } else if (ancestors.includes(target)) {
          const reason = `*${name} is inside the node &${name} names, so the value would contain itself; a manifest is a tree`;
          found.push({ path: [], reason, offset: node.range?.[0] });
        }
      } else if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return found;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
