/**
 * What the fast parse (fast-parse.ts) checks before js-yaml reads a text: its structure, line for
 * line, with the text of its scalars blanked, so that the checks see keys, dashes, flow
 * collections, properties and aliases only. Where js-yaml may read the text otherwise than `yaml`,
 * or accept what `yaml` refuses, the full parser decides.
 */

/** What the structure holds that the fast parse must know: each alias's uses, if any anchor or alias. */
export interface StructureFacts {
  readonly aliases?: ReadonlyMap<string, number>;
}

/** The facts of `text`'s structure, or undefined when the full parser must decide. */
export function structureOf(text: string): StructureFacts | undefined {
  const structure = new Structure();
  if (!readStructure(text, structure) || !structure.plain(text)) return undefined;
  return structure.aliases === undefined ? {} : { aliases: structure.aliases };
}

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
/**
 * An anchor's name. js-yaml names a collection by its anchor when the collection ends, `yaml` where
 * it starts: an anchor named again inside it (`a: &x {b: &x 1, c: *x}`, then `*x`) is another
 * node to each, so a name used twice goes to the full parser.
 */
const ANCHOR_NAME = /(?:^|[\s[{,:])&([^\s,[\]{}]+)/g;
/** A document marker run into text (`---a`), an anchor or alias run into a bracket (`&a[]`). */
const MISREAD = /^(?:---|\.\.\.)\S|(?:^|[\s[{,:])[&*][^\s,[\]{}]*[[{]/m;
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/** How many characters of structure lines the checks read at once: a string of V8's ordinary size. */
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
  /** The anchors' names seen so far. */
  private readonly anchors = new Set<string>();

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
    for (const [, name] of lines.matchAll(ANCHOR_NAME)) {
      if (this.anchors.has(name!)) {
        this.unusual = true;
        return;
      }
      this.anchors.add(name!);
    }
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
    const from = start;
    const stop = lineEnd(text, from);
    start = stop + 1;
    let col = 0;
    while (text.charCodeAt(from + col) === 0x20) col++;
    if (text.charCodeAt(from + col) === 0x09) return false;
    // More of a scalar's text, more indented than its key: read without being cut out of the text.
    if (textAt >= 0 && col > textAt && open === undefined) continue;
    let line = text.slice(from, stop > from && text.charCodeAt(stop - 1) === 0x0d ? stop - 1 : stop);
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
    // (A blank or comment line between the two changes nothing.) The node starts past the spaces, so
    // it is blank when it is empty or a comment, and a dash alone when it is just `-`.
    const blank = node === '' || node.charCodeAt(0) === 0x23;
    if (!blank || dash >= 0) emptyAt = node === '-' ? col : blank ? dash : -1;
    const key = KEY.exec(node)?.[0];
    const value = key !== undefined ? node.slice(key.length) : dash >= 0 && notKey(node) ? node : undefined;
    // Both checks below need a property or a block indicator first: most lines go without them.
    const head = value ?? node;
    const marked = startsWithPropertyOrBlock(head);
    const block = marked ? BLOCK_HEADER.exec(head) : null;
    if (block && /[+1-9]/.test(block[1]!)) return false;
    // An anchor or a tag before a key on the same line as another (`a: &x b:`).
    if (marked && value !== undefined && /^(?:[&!]\S*[ \t]+)+[^\s[{"'#&!].*:(?:\s|$)/.test(value))
      return false;
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

/** Whether `text` starts with a tag (`!`), an anchor (`&`) or a block indicator (`|`, `>`). */
function startsWithPropertyOrBlock(text: string): boolean {
  const c = text.charCodeAt(0);
  return c === 0x21 || c === 0x26 || c === 0x7c || c === 0x3e;
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
