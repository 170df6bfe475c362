/**
 * The fast path of step 1: YAML text → plain data with js-yaml, without a document or positions.
 * `yaml` (the parser that keeps positions) spends seconds on a 10,000-tool manifest; positions are
 * only needed to report a problem, so the document is built later, and only when one is reported
 * (locate.ts). The fast path must give exactly the data `yaml` gives, so it only takes the plain
 * cases: its scalars resolve by `yaml`'s core schema rules, and anything where the two parsers could
 * differ (a syntax error, a duplicate key, a tag, aliases near the expansion limit, a directive, several documents,
 * a complex or null key) returns undefined, and the caller takes the full path, whose messages are
 * the ones reported.
 */
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';

/** Guards against a manifest crafted to exhaust memory: a billion-laughs alias tree (parse.ts). */
export const MAX_ALIAS_COUNT = 100;

/**
 * The four implicit scalar types of `yaml`'s core schema (YAML 1.2), with its own tests and values,
 * in its order. (js-yaml keeps one type per tag, so each tag's forms are tried inside one type.)
 */
type Form = readonly [RegExp, (s: string) => unknown];
const scalar = (tag: string, forms: readonly Form[]) =>
  new Type(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (s: string | null) => forms.some(([test]) => test.test(s ?? '')),
    construct: (s: string | null) => {
      const text = s ?? '';
      return forms.find(([test]) => test.test(text))?.[1](text);
    },
  });

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

/**
 * A tag or explicit key indicator where a node may start; a directive line; a flow collection as a
 * key (`[a, b]: x`).
 */
const UNUSUAL = /(?:^|[\s[{,])(?:!|\?(?:\s|$))|^%|[\]}][ \t]*:(?:\s|$)/m;
/** An anchor or alias where a node may start (or in a string: then the check below just runs). */
const ANCHOR = /(?:^|[\s[{,])[&*][^\s,[\]{}]/;
const ALIAS = /(?:^|[\s[{,])\*([^\s,[\]{}]+)/g;
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/** The data of `text`, or undefined when the full parser must decide. */
export function fastParse(text: string): { data: unknown } | undefined {
  const structure = structureOf(text);
  if (structure === undefined || UNUSUAL.test(structure)) return undefined;
  const markers = structure.match(DOCUMENT_MARKER);
  if (markers && (markers.length > 1 || markers[0] !== '---' || !text.startsWith('---'))) return undefined;
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  if (ANCHOR.test(structure) && !withinAliasLimit(data, structure)) return undefined;
  return plainKeys(data, new Set()) ? { data: data ?? {} } : undefined;
}

/**
 * A scalar that starts on its key's (or dash's) line, and whose next lines, if any, can only be
 * more of its text: a block scalar's header (`|-`, `> # comment`; an anchor before it is counted
 * later, a tag refused), or a quoted or plain scalar (not a property, alias, comment or flow
 * collection, whose node may go on below in other shapes).
 */
const SCALAR =
  /^(?:(?:[!&]\S*[ \t]+)*[|>][1-9+-]{0,2}[ \t]*(?:#.*)?\r?$|["']|[^\s#&*!|>[\]{}%@`,?:-]|[?:-]\S)/;
/** A key on one line (plain or quoted) and the `:` that ends it; group 1 is what follows. */
const KEY = /^(?:"[^"\\]*"|'[^']*'|[^\s"'#[\]{}][^#]*?):[ \t]+(.*)$/;
/** `yaml` refuses an implicit key longer than 1,024 characters; js-yaml does not. */
const LONG_LINE = 1000;

/**
 * The structure of `text`, line for line: the text of its scalars blanked, so that the checks
 * above see keys, dashes, flow collections, properties and aliases only; or undefined for what
 * js-yaml accepts and `yaml` refuses.
 *
 * Blanked: a scalar's first line stands as one letter, and the lines after it that are more
 * indented than its key (or dash) go. Imported descriptions are full of `> [!NOTE]`, `**bold**`,
 * `[links` cut at the end of a line and long lines, in block scalars and in plain ones folded over
 * several lines, and no line more indented than the key whose value it is can be anything else.
 * The column is that of the key, or for `- text` of the dash: YAML's own bound. Nothing inside a
 * flow collection is blanked.
 *
 * Refused: a flow collection continued on a line not indented past it (`yaml` wants more than its
 * parent, which is less than the line that opened it, or than the key before it), a closing bracket
 * that opened nothing (brackets are counted, quoted or not: a miscount refuses), and a long line
 * with no early `: `.
 */
function structureOf(text: string): string | undefined {
  const lines = text.split('\n');
  let textAt = -1;
  let depth = 0;
  let flowAt = 0;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    let col = 0;
    while (line.charCodeAt(col) === 0x20) col++;
    const blank = line.trim() === '';
    if (depth > 0) {
      if (!blank && col < flowAt) return undefined;
    } else {
      if (textAt >= 0 && (blank || col > textAt)) {
        lines[i] = '';
        continue;
      }
      textAt = -1;
      // Past a sequence entry's dashes (`- - key: |`) to the node.
      let dash = -1;
      while (line[col] === '-' && (line[col + 1] === ' ' || line[col + 1] === '\t')) {
        dash = col++;
        while (line[col] === ' ' || line[col] === '\t') col++;
      }
      const key = KEY.exec(line.slice(col));
      const value = key?.[1] ?? (dash >= 0 ? line.slice(col) : undefined);
      if (value !== undefined && SCALAR.test(value)) {
        textAt = key ? col : dash;
        // A tag or an anchor before a block scalar stays, to be refused or counted.
        if (value[0] !== '!' && value[0] !== '&') {
          line = `${line.slice(0, line.length - value.length)}x`;
          lines[i] = line;
        }
      }
      flowAt = key ? col + 1 : col;
    }
    for (let c = 0; c < line.length; c++) {
      const code = line.charCodeAt(c);
      if (code === 0x5b || code === 0x7b) depth++;
      else if ((code === 0x5d || code === 0x7d) && --depth < 0) return undefined;
    }
    if (line.length > LONG_LINE && line.slice(0, LONG_LINE).search(/:(?:\s|$)/) < 0) return undefined;
  }
  return depth === 0 ? lines.join('\n') : undefined;
}

/** False when a key came from a null or a collection: `yaml` names those differently. */
function plainKeys(value: unknown, seen: Set<object>): boolean {
  if (value === null || typeof value !== 'object' || seen.has(value)) return true;
  seen.add(value);
  for (const [k, v] of Object.entries(value)) {
    if ((!Array.isArray(value) && (k === 'null' || k.includes('[object '))) || !plainKeys(v, seen))
      return false;
  }
  return true;
}

/**
 * True when `yaml` could not refuse the aliases as a billion-laughs tree (parse.ts, MAX_ALIAS_COUNT),
 * by an upper bound of its count: an anchor's count (itself and its uses) times the largest count
 * of an alias inside it. An alias of a collection is one more reference to one object, so its count
 * is its references; a scalar's is bounded by 1 + how often `*name` appears in the text. A cycle (an alias
 * inside its own anchor) is left to `yaml` too. Either way a `false` only means the full path decides.
 */
function withinAliasLimit(data: unknown, text: string): boolean {
  const uses = new Map<string, number>();
  for (const [, name] of text.matchAll(ALIAS)) uses.set(name!, (uses.get(name!) ?? 0) + 1);
  // `yaml` counts the anchor itself and each use: 1 + uses.
  const scalarBound = 1 + Math.max(0, ...uses.values());
  if (scalarBound > MAX_ALIAS_COUNT) return false;
  // References to each object, and no cycle.
  const references = new Map<object, number>();
  const onPath = new Set<object>();
  const count = (value: unknown): boolean => {
    if (value === null || typeof value !== 'object') return true;
    if (onPath.has(value)) return false;
    const seen = references.get(value);
    references.set(value, (seen ?? 0) + 1);
    if (seen !== undefined) return true;
    onPath.add(value);
    for (const v of Object.values(value)) if (!count(v)) return false;
    onPath.delete(value);
    return true;
  };
  if (!count(data)) return false;
  // For each object, the largest bound of a shared object inside it; for a shared one, its own bound.
  const inside = new Map<object, number>();
  const largestInside = (value: object): number => {
    let largest = inside.get(value);
    if (largest !== undefined) return largest;
    largest = 0;
    for (const v of Object.values(value)) {
      if (v === null || typeof v !== 'object') continue;
      const refs = references.get(v) ?? 1;
      const own = refs > 1 ? refs * Math.max(scalarBound, largestInside(v)) : 0;
      largest = Math.max(largest, own, largestInside(v));
    }
    inside.set(value, largest);
    return largest;
  };
  return data === null || typeof data !== 'object' || largestInside(data) <= MAX_ALIAS_COUNT;
}
