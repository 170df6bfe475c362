/**
 * Output rules: what a caller may not see of a result. A rule masks or drops the values at JSON
 * paths (`$.rows[*].ssn`, `$..email`), masks SQL columns (`columns: [ssn]`, the `rows` of a SQL
 * result), and masks what the named detectors find inside any string (detectors.ts).
 *
 * A result reaches the model twice, as structured content and as text, so both are masked: text
 * that is JSON is parsed, masked by the same rules and written again; other text (a SQL result's
 * markdown table) has every masked value's text replaced, and the detectors run over it too. Each
 * text is read once, and at most MAX_TEXT_BYTES of it: the caller may shape a large result.
 */
import { type DetectorName, redact } from './detectors.js';

/** What a masked string becomes; a masked number, boolean or object becomes null. */
export const MASK = '***';

/** One step of a path: a key, every item or value (`*`), or any depth (`..`). */
type Step = { readonly key: string } | { readonly every: true } | { readonly deep: string };

export type CompiledPath = readonly Step[];

/** Parses the JSON path subset rules take: `$`, `.key`, `['key']`, `[*]`, `.*`, `..key`. */
export function parsePath(path: string): CompiledPath | string {
  let rest = path.trim();
  if (rest.startsWith('$')) rest = rest.slice(1);
  else if (rest !== '' && !rest.startsWith('.') && !rest.startsWith('[')) rest = `.${rest}`;
  const steps: Step[] = [];
  while (rest !== '') {
    const step = firstStep(rest);
    if (step === undefined)
      return `cannot read the path from "${rest}": write it like $.rows[*].email or $..email`;
    steps.push(step.step);
    rest = rest.slice(step.length);
  }
  if (steps.length === 0) return 'the path names the whole result; name a field, e.g. $.rows[*].email';
  return steps;
}

/** The step a path's text starts with, and how many characters it takes. */
function firstStep(text: string): { step: Step; length: number } | undefined {
  for (const [pattern, make] of STEP_FORMS) {
    const m = pattern.exec(text);
    if (m !== null) return { step: make(m), length: m[0].length };
  }
  return undefined;
}

const STEP_FORMS: readonly (readonly [RegExp, (m: RegExpExecArray) => Step])[] = [
  [/^\.\.([A-Za-z0-9_$-]+)/, (m) => ({ deep: m[1] as string })],
  [/^\.\*|^\[\*\]/, () => ({ every: true })],
  [/^\.([A-Za-z0-9_$-]+)/, (m) => ({ key: m[1] as string })],
  [/^\[\s*'([^']*)'\s*\]|^\[\s*"([^"]*)"\s*\]/, (m) => ({ key: (m[1] ?? m[2]) as string })],
  [/^\[(\d+)\]/, (m) => ({ key: m[1] as string })],
];

/** The masking a set of rules asks for, merged: what one call's result goes through. */
export interface Masking {
  readonly mask: readonly CompiledPath[];
  readonly drop: readonly CompiledPath[];
  readonly detect: readonly DetectorName[];
}

/**
 * `value` with the masking applied, as a copy (the kind's own objects are left alone); `seen`
 * collects the text of every value masked or dropped, for masking text the value was written into.
 */
export function maskValue(value: unknown, masking: Masking, seen: Set<string>): unknown {
  let out = structuredClone(value);
  for (const path of masking.drop) out = apply(out, path, 0, 'drop', seen);
  for (const path of masking.mask) out = apply(out, path, 0, 'mask', seen);
  if (masking.detect.length > 0) out = detectIn(out, masking.detect);
  return out;
}

function apply(
  node: unknown,
  path: CompiledPath,
  at: number,
  how: 'mask' | 'drop',
  seen: Set<string>,
): unknown {
  const step = path[at];
  if (step === undefined) return node;
  const last = at === path.length - 1;
  if ('deep' in step) {
    // `..key`: the key at this level and at every depth below.
    const here = apply(node, [{ key: step.deep }, ...path.slice(at + 1)], 0, how, seen);
    if (typeof here !== 'object' || here === null) return here;
    for (const [k, child] of Object.entries(here))
      (here as Record<string, unknown>)[k] = apply(child, path, at, how, seen);
    return here;
  }
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  const keys = 'every' in step ? Object.keys(record) : Object.hasOwn(record, step.key) ? [step.key] : [];
  for (const key of keys) {
    if (!last) {
      record[key] = apply(record[key], path, at + 1, how, seen);
      continue;
    }
    remember(record[key], seen);
    if (how === 'drop' && !Array.isArray(record)) delete record[key];
    else record[key] = masked(record[key]);
  }
  return node;
}

function masked(value: unknown): unknown {
  return typeof value === 'string' ? MASK : null;
}

function remember(value: unknown, seen: Set<string>): void {
  if (typeof value === 'string' && value !== '') seen.add(value);
  else if (typeof value === 'number' || typeof value === 'bigint') seen.add(String(value));
  else if (typeof value === 'object' && value !== null)
    for (const v of Object.values(value)) remember(v, seen);
}

/**
 * The detectors over every string of `node`, within MAX_TEXT_BYTES in all: a string past the budget
 * is withheld rather than searched (it might hold what they look for).
 */
function detectIn(
  node: unknown,
  detect: readonly DetectorName[],
  budget = { left: MAX_TEXT_BYTES },
): unknown {
  if (typeof node === 'string') {
    budget.left -= Buffer.byteLength(node, 'utf8');
    return budget.left < 0 ? STRING_TOO_LONG : redact(node, detect);
  }
  if (typeof node !== 'object' || node === null) return node;
  for (const [k, v] of Object.entries(node))
    (node as Record<string, unknown>)[k] = detectIn(v, detect, budget);
  return node;
}

/**
 * Text the model reads, masked. JSON text is masked as a value by the rule's paths, and then every
 * value masked anywhere (in the structured result too) is masked again in its string leaves and
 * numbers: the text of an HTTP answer whose body is an array is that array, while its structured
 * result is `{result: [...]}`, so the paths alone would miss it. Other text has each masked value's
 * text replaced (the longest at each place, numbers only where they stand alone), then the detectors
 * run. Both passes read the text once; text over MAX_TEXT_BYTES is withheld rather than searched.
 */
export function maskText(text: string, masking: Masking, seen: ReadonlySet<string>): string {
  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) return TEXT_TOO_LONG;
  const json = parseJson(text);
  if (json !== undefined) {
    const values = new Set(seen);
    const out = maskValue(json.value, masking, values);
    if (values.size === 0) return JSON.stringify(out, null, json.indent);
    const matcher = matcherFor(values);
    if (matcher === undefined) return WITHHELD;
    const again = maskLeaves(out, matcher, values);
    return JSON.stringify(again, null, json.indent);
  }
  // Past so many masked values the text is withheld rather than searched (the structured result
  // still carries the masked rows).
  const matcher = seen.size === 0 ? undefined : matcherFor(seen);
  if (seen.size > 0 && matcher === undefined) return WITHHELD;
  const out = matcher === undefined ? text : matcher.replace(text);
  return masking.detect.length > 0 ? redact(out, masking.detect) : out;
}

/**
 * The matcher of a set of masked values, or undefined past MAX_VALUES_IN_TEXT values or
 * MAX_TEXT_BYTES of their forms (then the text is withheld rather than searched).
 */
function matcherFor(values: ReadonlySet<string>): ValueMatcher | undefined {
  if (values.size > MAX_VALUES_IN_TEXT) return undefined;
  let bytes = 0;
  for (const value of values) bytes += value.length;
  return bytes > MAX_TEXT_BYTES ? undefined : new ValueMatcher(values);
}

/** `node` with masked values masked again where they sit: inside strings, and as numbers. */
function maskLeaves(node: unknown, matcher: ValueMatcher, values: ReadonlySet<string>): unknown {
  if (typeof node === 'string') return matcher.replace(node);
  if ((typeof node === 'number' || typeof node === 'bigint') && values.has(String(node))) return null;
  if (typeof node !== 'object' || node === null) return node;
  for (const [k, v] of Object.entries(node))
    (node as Record<string, unknown>)[k] = maskLeaves(v, matcher, values);
  return node;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * Finds every written form of a set of masked values in one pass: one regular expression, an
 * alternation of the forms, longest first (so the longest form at a place wins), a number only where
 * it stands alone (50 in "50" but not in "1502" or "50.5").
 */
class ValueMatcher {
  private readonly pattern: RegExp | undefined;

  constructor(values: ReadonlySet<string>) {
    const forms = [...new Set([...values].flatMap(writtenForms))].sort((a, b) => b.length - a.length);
    const numbers = forms.filter((form) => NUMBER.test(form)).map(escapeRegExp);
    const alternatives = forms.filter((form) => !NUMBER.test(form)).map(escapeRegExp);
    // The numbers share one pair of boundary checks: a check in front of each alternative would
    // keep the engine from skipping ahead to where one can start, and cost values × length.
    if (numbers.length > 0) alternatives.push(`(?<![\\w.])(?:${numbers.join('|')})(?![\\w]|\\.\\d)`);
    this.pattern = alternatives.length === 0 ? undefined : new RegExp(alternatives.join('|'), 'g');
  }

  replace(text: string): string {
    return this.pattern === undefined ? text : text.replace(this.pattern, MASK);
  }
}

/**
 * The ways a value may be written into text made from it: as it is, and as a markdown table cell
 * writes it (kinds/sql/text-table.ts: `\\`, `|` and line breaks escaped, a long value cut to its
 * first 199 characters), so no form of a masked value is left in the table the model reads.
 */
function writtenForms(value: string): string[] {
  const forms = [value];
  const prefix = value.length > CUT_AT ? value.slice(0, CUT_AT - 1) : undefined;
  if (prefix !== undefined) forms.push(prefix);
  for (const form of [...forms]) {
    const escaped = form
      .replace(/\\/g, '\\\\')
      .replace(/\|/g, '\\|')
      .replace(/\r?\n|\r/g, '\\n');
    if (escaped !== form) forms.push(escaped);
  }
  return forms;
}

/** Where a table cell is cut (kinds/sql/text-table.ts MAX_CELL_CHARS). */
const CUT_AT = 200;

/** How many distinct masked values a text is searched for (a page of SQL rows is well under it). */
const MAX_VALUES_IN_TEXT = 5000;
/** How much text is searched for masked values and by the detectors: 1 MiB (a page of rows is far less). */
export const MAX_TEXT_BYTES = 1024 * 1024;
const TEXT_TOO_LONG = `[This text is withheld: it is over ${MAX_TEXT_BYTES} bytes, more than is searched for masked values. The structured result holds the data, masked.]`;
const STRING_TOO_LONG = '[withheld: past the bytes the detectors search in one result]';
const WITHHELD =
  '[This text is withheld: too many of its values are masked for this caller. The structured result holds the rows, masked.]';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parseJson(text: string): { value: unknown; indent: number | undefined } | undefined {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    const indent = /^[{[]\n( +)/.exec(trimmed)?.[1]?.length;
    return { value, indent };
  } catch {
    return undefined;
  }
}
