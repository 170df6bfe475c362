/**
 * The fast path of step 1: YAML text → plain data with js-yaml, without a document or positions.
 * `yaml` (the parser that keeps positions) spends seconds on a 10,000-tool manifest; positions are
 * only needed to report a problem, so the document is built later, and only when one is reported
 * (locate.ts). The fast path must give exactly the data `yaml` gives, so it only takes the plain
 * cases: its scalars resolve by `yaml`'s core schema rules, and anything where the two parsers could
 * differ (a syntax error, a duplicate key, a tag, aliases near the expansion limit, a directive, several documents,
 * a complex or null key) returns undefined, and the caller takes the full path, whose messages are
 * the ones reported. Its strings are copies of their own (ownString).
 */
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';
import { structureOf } from './fast-structure.js';

/** Guards against a manifest crafted to exhaust memory: a billion-laughs alias tree (parse.ts). */
export const MAX_ALIAS_COUNT = 100;

/**
 * The four implicit scalar types of `yaml`'s core schema (YAML 1.2), with its own tests and values,
 * in its order. (js-yaml keeps one type per tag, so each tag's forms are tried inside one type.)
 * Every plain scalar is tried against each type in turn: a type's forms are one pattern for that.
 */
type Form = readonly [RegExp, (s: string) => unknown];
const scalar = (tag: string, forms: readonly Form[]) => {
  const anyForm = new RegExp(forms.map(([test]) => test.source).join('|'));
  return new Type(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (s: string | null) => anyForm.test(s ?? ''),
    construct: (s: string | null) => {
      const text = s ?? '';
      return forms.find(([test]) => test.test(text))?.[1](text);
    },
  });
};

const CORE_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    scalar('null', [[/^(?:~|[Nn]ull|NULL)?$/, () => null]]),
    scalar('bool', [[/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === 't' || s[0] === 'T']]),
    scalar('int', [
      [/^0o[0-7]+$/, (s) => Number.parseInt(s.substring(2), 8)],
      [/^[-+]?[0-9]+$/, (s) => Number.parseInt(s, 10)],
      [/^0x[0-9a-fA-F]+$/, (s) => Number.parseInt(s.substring(2), 16)],
    ]),
    scalar('float', [
      [
        /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
        (s) => (s.slice(-3).toLowerCase() === 'nan' ? Number.NaN : s[0] === '-' ? -Infinity : Infinity),
      ],
      [/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, Number.parseFloat],
      [/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, Number.parseFloat],
    ]),
  ],
});

/** The data of `text`, or undefined when the full parser must decide. */
export function fastParse(text: string): { data: unknown } | undefined {
  const structure = structureOf(text);
  if (structure === undefined) return undefined;
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  const { aliases } = structure;
  const own = PAST_LATIN1.test(text) ? narrowString : ownString;
  const walk = new DataWalk(aliases !== undefined, own);
  if (data !== null && typeof data === 'object' && !walk.walk(data)) return undefined;
  if (aliases !== undefined && !walk.withinAliasLimit(aliases)) return undefined;
  return { data: typeof data === 'string' ? own(data) : (data ?? {}) };
}

/** A character past Latin-1: V8 keeps the text, and every string cut from it, at two bytes each. */
const PAST_LATIN1 = /[\u0100-\uffff]/;

/**
 * ownString, one byte a character where the string's characters allow it. A string cut from a text
 * with a character past Latin-1 takes two bytes a character, even when all of its own are Latin-1
 * (the GitHub description has 20 such characters in 3.2 million); JSON's parser builds each string
 * in the narrowest form its characters allow.
 */
function narrowString(text: string): string {
  return text.length < 13 ? text : JSON.parse(JSON.stringify(text));
}

/**
 * A string that holds only its own characters. Parsers cut scalars out of the text, and V8 keeps a
 * cut (a sliced string, 13 characters or more) pointing into the whole text: one title kept by the
 * catalog kept the whole manifest (megabytes for an imported description) for the life of the
 * server. A copy holds only its own characters.
 */
export function ownString(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

/**
 * One walk over the data js-yaml gave: each string made a copy of its own (ownString), each key
 * checked (`yaml` names a key from a null or a collection otherwise), and, when the text has
 * anchors or aliases, the objects met more than once counted, for the alias limit, and a cycle
 * refused. Without them the data is a tree, and nothing needs to remember what it met: a set of
 * every object, for each of three walks, was most of what checking the data cost.
 */
class DataWalk {
  /** Every object met, when the text has anchors or aliases. */
  private readonly seen: Set<object> | undefined;
  /** The objects from the top to the one being walked: meeting one of them again is a cycle. */
  private readonly path: object[] = [];
  /** The objects met more than once (aliases of a collection), and how often. */
  private readonly shared = new Map<object, number>();

  /** `own`: how a string is made one of its own (ownString or narrowString). */
  constructor(
    aliased: boolean,
    private readonly own: (text: string) => string,
  ) {
    this.seen = aliased ? new Set() : undefined;
  }

  /** False when the full parser must decide: a key `yaml` names otherwise, or a cycle. */
  walk(node: object): boolean {
    if (this.seen?.has(node)) {
      if (this.path.includes(node)) return false;
      this.shared.set(node, (this.shared.get(node) ?? 1) + 1);
      return true;
    }
    this.seen?.add(node);
    this.path.push(node);
    const plain = Array.isArray(node) ? this.items(node) : this.members(node as Record<string, unknown>);
    this.path.pop();
    return plain;
  }

  private items(list: unknown[]): boolean {
    for (let i = 0; i < list.length; i++) {
      const value = list[i];
      if (typeof value === 'string') list[i] = this.own(value);
      else if (value !== null && typeof value === 'object' && !this.walk(value)) return false;
    }
    return true;
  }

  private members(record: Record<string, unknown>): boolean {
    for (const key of Object.keys(record)) {
      if (key === 'null' || key.includes('[object ')) return false;
      const value = record[key];
      if (typeof value === 'string') record[key] = this.own(value);
      else if (value !== null && typeof value === 'object' && !this.walk(value)) return false;
    }
    return true;
  }

  /**
   * True when `yaml` could not refuse the aliases as a billion-laughs tree (parse.ts,
   * MAX_ALIAS_COUNT), by an upper bound of its count: for each anchor, its count (itself and its
   * uses) times the largest count of an alias inside it. An alias of a collection is one more
   * reference to one object, so its count is its references; a scalar's is bounded by 1 + how often
   * `*name` appears in the text (`uses`). A `false` only means the full path decides.
   */
  withinAliasLimit(uses: ReadonlyMap<string, number>): boolean {
    // `yaml` counts the anchor itself and each use: 1 + uses.
    const scalarBound = 1 + Math.max(0, ...uses.values());
    if (scalarBound > MAX_ALIAS_COUNT) return false;
    // A shared object's bound, and the largest bound of a shared object inside it, each worked out
    // once: only shared objects and what is inside them are walked again.
    const bounds = new Map<object, number>();
    const boundOf = (node: object): number => {
      let bound = bounds.get(node);
      if (bound === undefined) {
        bound = (this.shared.get(node) ?? 1) * Math.max(scalarBound, largestInside(node));
        bounds.set(node, bound);
      }
      return bound;
    };
    const largestInside = (node: object): number => {
      let largest = 0;
      for (const value of Object.values(node)) {
        if (value === null || typeof value !== 'object') continue;
        largest = Math.max(largest, this.shared.has(value) ? boundOf(value) : largestInside(value));
      }
      return largest;
    };
    for (const node of this.shared.keys()) if (boundOf(node) > MAX_ALIAS_COUNT) return false;
    return true;
  }
}
