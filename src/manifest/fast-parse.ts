/**
 * The fast path of step 1: YAML text → plain data with js-yaml, without a document or positions.
 * `yaml` (the parser that keeps positions) spends seconds on a 10,000-tool manifest; positions are
 * only needed to report a problem, so the document is built later, and only when one is reported
 * (locate.ts). The fast path must give exactly the data `yaml` gives, so it only takes the plain
 * cases: its scalars resolve by `yaml`'s core schema rules, and anything where the two parsers could
 * differ (a syntax error, a duplicate key, a tag, an anchor or alias, a directive, several documents,
 * a complex or null key) returns undefined, and the caller takes the full path, whose messages are
 * the ones reported.
 */
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';

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
 * An anchor, alias, tag or explicit key indicator where a node may start; a directive line; a flow
 * collection as a key (`[a, b]: x`).
 */
const UNUSUAL = /(?:^|[\s[{,])(?:[&*][^\s,[\]{}]|!|\?(?:\s|$))|^%|[\]}][ \t]*:(?:\s|$)/m;
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/** The data of `text`, or undefined when the full parser must decide. */
export function fastParse(text: string): { data: unknown } | undefined {
  if (UNUSUAL.test(text)) return undefined;
  const markers = text.match(DOCUMENT_MARKER);
  if (markers && (markers.length > 1 || markers[0] !== '---' || !text.startsWith('---'))) return undefined;
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  return plainKeys(data) ? { data: data ?? {} } : undefined;
}

/** False when a key came from a null or a collection: `yaml` names those differently. */
function plainKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(plainKeys);
  if (value === null || typeof value !== 'object') return true;
  for (const [k, v] of Object.entries(value)) {
    if (k === 'null' || k.includes('[object ') || !plainKeys(v)) return false;
  }
  return true;
}
