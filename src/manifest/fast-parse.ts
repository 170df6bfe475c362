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

/*
 * Where a node may start: at the start of a line, after a space, after a flow collection's `[`, `{`
 * or `,`, and after the `:` of a JSON-like key in a flow mapping (`{"a":*x}`), which needs no space.
 */

/**
 * A tag or explicit key indicator where a node may start; a directive line; a flow collection as a
 * key (`[a, b]: x`).
 */
const UNUSUAL = /(?:^|[\s[{,:])(?:!|\?(?:\s|$))|^%|[\]}][ \t]*:(?:\s|$)/m;
/** An anchor or alias where a node may start (or in a string: then the check below just runs). */
const ANCHOR = /(?:^|[\s[{,:])[&*][^\s,[\]{}]/;
const ALIAS = /(?:^|[\s[{,:])\*([^\s,[\]{}]+)/g;
/** A document marker run into text (`---a`), an anchor or alias run into a bracket (`&a[]`). */
const MISREAD = /^(?:---|\.\.\.)\S|(?:^|[\s[{,:])[&*][^\s,[\]{}]*[[{]/m;
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/** The data of `text`, or undefined when the full parser must decide. */
export function fastParse(text: string): { data: unknown } | undefined {
  const structure = new Structure();
  if (!readStructure(text, structure) || !structure.plain(text)) return undefined;
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  if (structure.aliases !== undefined && !withinAliasLimit(data, structure.aliases)) return undefined;
  return plainKeys(data, new Set()) ? { data: data ?? {} } : undefined;
}

/** How many characters of structure lines the checks read at once: a string kept out of V8's large-object space. */
const BATCH_CHARS = 16 * 1024;

/**
 * What the checks above find in the structure of a text (readStructure), read a batch of lines at a
 * time: no match runs past its line, so lines read together match as they would in the whole. The
 * structure as one string, and the text's lines as one array, were copies of the manifest's size,
 * kept until the next full collection.
 */
class Structure {
  private batch: string[] = [];
  private chars = 0;
  private unusual = false;
  private markers = 0;
  private firstMarker: string | undefined;
  /** Each alias's number of uses, once an anchor or alias was seen; else undefined. */
  aliases: Map<string, number> | undefined;

  add(line: string): void {
    this.batch.push(line);
    this.chars += line.length + 1;
    if (this.chars >= BATCH_CHARS) this.check();
  }

  /** No tag, directive, explicit or flow key, misread marker, and one `---` at most, the first line. */
  plain(text: string): boolean {
    this.check();
    if (this.unusual) return false;
    return this.markers === 0 || (this.markers === 1 && this.firstMarker === '---' && text.startsWith('---'));
  }

  private check(): void {
    const lines = this.batch.join('\n');
    this.batch = [];
    this.chars = 0;
    if (this.unusual || UNUSUAL.test(lines) || MISREAD.test(lines)) {
      this.unusual = true;
      return;
    }
    for (const [marker] of lines.matchAll(DOCUMENT_MARKER)) {
      this.markers++;
      this.firstMarker ??= marker;
    }
    if (!ANCHOR.test(lines)) return;
    this.aliases ??= new Map();
    for (const [, name] of lines.matchAll(ALIAS)) this.aliases.set(name!, (this.aliases.get(name!) ?? 0) + 1);
  }
}

/**
 * A block scalar's header after its key or dash: properties (an anchor is counted later, a tag
 * refused), the indicator, a comment. Group 1 holds the chomping and indentation indicators.
 */
const BLOCK_HEADER = /^(?:[!&]\S*[ \t]+)*[|>]([1-9+-]{0,2})[ \t]*(?:#.*)?$/;
/**
 * A scalar that starts on its key's (or dash's) line, and whose next lines, if any, can only be
 * more of its text: a block scalar, or a quoted or plain scalar (not a property, alias, comment
 * or flow collection, whose node may go on below in other shapes).
 */
const SCALAR = /^(?:["']|[^\s#&*!|>[\]{}%@`,?:-]|[?:-]\S)/;
/**
 * A key on one line and its `:`: quoted, or plain (no `#`, a `:` only before a non-space). Each
 * character can match one way only, so a line costs time in its length, whatever it holds.
 */
const KEY =
  /^(?:(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ \t]*|[^\s"'#[\]{}:][^#:]*(?::(?![ \t]|$)[^#:]*)*):(?:[ \t]+|$)/;
/** A line that ends in a backslash escaping its line break (an odd number of them). */
const ESCAPED_BREAK = /(?:^|[^\\])(?:\\\\)*\\$/;
/** What may follow a closed quoted scalar on its line. */
const AFTER_QUOTE = /^[ \t]*(?:#.*)?$/;
/** `yaml` refuses an implicit key longer than 1,024 characters; js-yaml does not. */
const LONG_LINE = 1000;

/**
 * Reads the structure of `text` into `structure`, line for line: the text of its scalars blanked,
 * so that the checks above see keys, dashes, flow collections, properties and aliases only; false
 * for what js-yaml may read otherwise than `yaml`, or accept where `yaml` refuses.
 *
 * Blanked: a scalar's first line stands as one letter, and the lines after it that are more
 * indented than its key (or its dash) go: YAML allows them to be nothing but its text. Imported
 * descriptions are full of `> [!NOTE]`, `**bold**`, `[links` cut at the end of a line and long
 * lines, in block scalars and in plain ones folded over several lines. A line that may hold a key
 * this cannot read (a `#` or an escape in it) is left as it is, and so are the lines after it.
 *
 * Refused, where the two parsers differ: a carriage return alone (a line break to js-yaml only), a
 * tab in a line's indentation, a block scalar with an indentation indicator or `+` (`|2`, `>+`), a
 * double-quoted escape `yaml` does not know or an empty line after an escaped line break, a quoted
 * scalar whose next lines are not indented past its key, a flow collection that goes on past its
 * line or closes one it did not open (brackets count outside quotes and comments), an empty list
 * entry followed by a less indented one, and a long line without an early `: `.
 */
function readStructure(text: string, structure: Structure): boolean {
  if (/\r(?!\n)/.test(text)) return false;
  let textAt = -1;
  /** The quote of a quoted scalar still open at the end of the last line. */
  let open: string | undefined;
  /** That line ended in an escaped line break. */
  let escapedBreak = false;
  /** The column of an empty list entry on the last line (`-` alone), if it was one. */
  let emptyAt = -1;
  for (let start = 0; start <= text.length; ) {
    const stop = lineEnd(text, start);
    let line = text.slice(start, stop > start && text.charCodeAt(stop - 1) === 0x0d ? stop - 1 : stop);
    start = stop + 1;
    let col = 0;
    while (line.charCodeAt(col) === 0x20) col++;
    if (line[col] === '\t') return false;
    if (textAt >= 0 && (col > textAt || line.trim() === '')) {
      if (open !== undefined) {
        // yaml and js-yaml read an empty line after an escaped line break apart.
        if (escapedBreak && line.trim() === '') return false;
        const end = quoteEnd(line, col, open);
        if (end === undefined || (end >= 0 && !AFTER_QUOTE.test(line.slice(end + 1)))) return false;
        if (end >= 0) open = undefined;
        escapedBreak = open === '"' && ESCAPED_BREAK.test(line);
      }
      // A blanked line: nothing of it is structure.
      continue;
    }
    if (open !== undefined) return false;
    textAt = -1;
    const indent = col;
    // Past a sequence entry's dashes (`- - key: |`) to the node.
    let dash = -1;
    while (line[col] === '-' && line[col + 1] === ' ') {
      dash = col++;
      while (line[col] === ' ') col++;
    }
    const node = line.slice(col);
    if (line[col] === '\t' || node.startsWith('-\t')) return false;
    // An empty entry followed by an entry of a list less indented: js-yaml reads the second into
    // the first's list.
    if (emptyAt >= 0 && line[dash >= 0 ? indent : col] === '-' && indent < emptyAt) return false;
    // (A blank or comment line between the two changes nothing.)
    const bare = node.replace(/(?:^|[ \t])#.*$/, '').trim();
    if (bare !== '' || dash >= 0) emptyAt = bare === '-' ? col : bare === '' ? dash : -1;
    const key = KEY.exec(node)?.[0];
    const value = key !== undefined ? node.slice(key.length) : dash >= 0 && notKey(node) ? node : undefined;
    const block = BLOCK_HEADER.exec(value ?? node);
    if (block && /[+1-9]/.test(block[1]!)) return false;
    // An anchor or a tag before a key on the same line as another (`a: &x b:`).
    if (value !== undefined && /^(?:[&!]\S*[ \t]+)+[^\s[{"'#&!].*:(?:\s|$)/.test(value)) return false;
    if (value !== undefined && (block || SCALAR.test(value))) {
      textAt = key !== undefined ? col : dash;
      if (value[0] === '"' || value[0] === "'") {
        const end = quoteEnd(value, 1, value[0]);
        if (end === undefined || (end >= 0 && !AFTER_QUOTE.test(value.slice(end + 1)))) return false;
        if (end < 0) open = value[0];
        escapedBreak = open === '"' && ESCAPED_BREAK.test(value);
      }
      // A tag or an anchor before a block scalar stays, to be refused or counted.
      if (value[0] !== '!' && value[0] !== '&') {
        line = `${line.slice(0, line.length - value.length)}x`;
      }
    }
    if (!flowClosed(line)) return false;
    if (line.length > LONG_LINE && line.slice(0, LONG_LINE).search(/:(?:\s|$)/) < 0) return false;
    structure.add(line);
  }
  return open === undefined;
}

/** Where the line that starts at `from` ends: its line feed, or the end of the text. */
function lineEnd(text: string, from: number): number {
  const at = text.indexOf('\n', from);
  return at < 0 ? text.length : at;
}

/**
 * A node (after a dash) that KEY did not take and that cannot be a key it missed: a quoted string
 * alone on its line or going on past it (a key is on one line), or plain text without a `:`.
 */
function notKey(node: string): boolean {
  if (node[0] !== '"' && node[0] !== "'") return !node.includes(':');
  const end = quoteEnd(node, 1, node[0]);
  return end !== undefined && (end < 0 || AFTER_QUOTE.test(node.slice(end + 1)));
}

/** Whether every flow collection `line` opens closes on it, with no quote left open. */
function flowClosed(line: string): boolean {
  let depth = 0;
  for (let c = 0; c < line.length; c++) {
    const code = line.charCodeAt(c);
    if (code === 0x5b || code === 0x7b) depth++;
    else if (code === 0x5d || code === 0x7d) {
      if (--depth < 0) return false;
    } else if ((code === 0x22 || code === 0x27) && (c === 0 || /[\s[{,:]/.test(line[c - 1]!))) {
      const end = quoteEnd(line, c + 1, line[c]!);
      if (end === undefined || end < 0) return false;
      c = end;
    } else if (code === 0x23 && (c === 0 || /\s/.test(line[c - 1]!))) break;
  }
  return depth === 0;
}

/** The escapes of a double-quoted scalar that `yaml` and js-yaml read alike. */
const ESCAPE =
  /^(?:[0abtnvfre "/\\N_LP\t]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U00(?:0[0-9a-fA-F]|10)[0-9a-fA-F]{4})/;

/**
 * Where the quoted string that `quote` opened ends on `line`, looking from `from` (`''` and
 * escapes inside): -1 when it goes on past the line, undefined for an escape the two parsers may
 * read apart (one `yaml` refuses, or a line break escaped at the end of the line).
 */
function quoteEnd(line: string, from: number, quote: string): number | undefined {
  for (let c = from; c < line.length; c++) {
    if (quote === '"' && line[c] === '\\') {
      // A line break escaped at the end of the line: the scalar goes on (see `escapedBreak`).
      if (c + 1 === line.length) return -1;
      const escaped = ESCAPE.exec(line.slice(c + 1, c + 11));
      if (!escaped) return undefined;
      c += escaped[0].length;
    } else if (line[c] === quote) {
      if (quote === "'" && line[c + 1] === "'") c++;
      else return c;
    }
  }
  return -1;
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
function withinAliasLimit(data: unknown, uses: ReadonlyMap<string, number>): boolean {
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
