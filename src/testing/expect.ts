/**
 * Checking one result against a case's expectations. Each failed expectation is one readable
 * message; those that compare texts or JSON end with a line diff (`-` expected, `+` actual).
 */
import type { Expectations } from './cases.js';

// biome-ignore lint/suspicious/noExplicitAny: results are free-form JSON, read field by field
type Json = Record<string, any>;

/** What a case's result is checked through: its text, and for tool calls the whole result. */
export interface Observed {
  readonly text: string;
  readonly result: Json;
  readonly isTool: boolean;
}

export function check(expect: Expectations, observed: Observed, snapshot?: string): string[] {
  const failures: string[] = [];
  const { text, result } = observed;
  if (observed.isTool) {
    const isError = result.isError === true;
    const wanted = expect.isError ?? false;
    if (isError !== wanted) {
      failures.push(`isError: expected ${wanted}, got ${isError}${isError ? `\n  ${indent(text)}` : ''}`);
    }
  }
  if (expect.text !== undefined && text !== expect.text) {
    failures.push(`text is not what was expected:\n${diff(expect.text, text)}`);
  }
  for (const part of expect.contains ?? []) {
    if (!text.includes(part))
      failures.push(`text does not contain ${JSON.stringify(part)}; it is:\n  ${indent(text)}`);
  }
  if (expect.structured !== undefined) {
    const mismatches = subset(expect.structured, result.structuredContent, 'structuredContent');
    if (mismatches.length) {
      failures.push(
        `structuredContent does not contain what was expected:\n${mismatches.map((m) => `  ${m}`).join('\n')}\n${diff(
          pretty(expect.structured),
          pretty(result.structuredContent),
        )}`,
      );
    }
  }
  if (expect.rows !== undefined) {
    const count = rowCount(result.structuredContent);
    if (count !== expect.rows) {
      failures.push(
        count === undefined
          ? `rows: expected ${expect.rows}, but the result has no rows (structuredContent.rows, .result or a list)`
          : `rows: expected ${expect.rows}, got ${count}`,
      );
    }
  }
  if (snapshot !== undefined && snapshot !== snapshotOf(observed)) {
    failures.push(
      `the result differs from its snapshot (run with --update to accept it):\n${diff(snapshot, snapshotOf(observed))}`,
    );
  }
  return failures;
}

/** What a snapshot keeps: the result as a client receives it, pretty-printed. */
export function snapshotOf(observed: Observed): string {
  return pretty(observed.result);
}

/** Rows of a SQL result (`rows`), an array picked into `result`, or an array itself. */
function rowCount(structured: unknown): number | undefined {
  if (Array.isArray(structured)) return structured.length;
  if (structured && typeof structured === 'object') {
    const s = structured as Json;
    if (Array.isArray(s.rows)) return s.rows.length;
    if (Array.isArray(s.result)) return s.result.length;
  }
  return undefined;
}

/**
 * Where `actual` does not contain `expected`: objects may have more keys, arrays must have the same
 * length with each item a subset, everything else is equal.
 */
export function subset(expected: unknown, actual: unknown, path: string): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${show(actual)}`];
    if (actual.length !== expected.length)
      return [`${path}: expected ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((item, i) => subset(item, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object, got ${show(actual)}`];
    return Object.entries(expected).flatMap(([key, value]) =>
      key in actual
        ? subset(value, (actual as Json)[key], `${path}.${key}`)
        : [`${path}.${key}: missing (expected ${show(value)})`],
    );
  }
  return Object.is(expected, actual) ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

/** A line diff (longest common subsequence): `  ` same, `- ` expected only, `+ ` actual only. */
export function diff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`    ${a[i++]}`);
      j++;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! > lcs[i + 1]![j]!))
      out.push(`  + ${b[j++]}`);
    else out.push(`  - ${a[i++]}`);
  }
  return `  --- expected\n  +++ actual\n${out.join('\n')}`;
}

const pretty = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value, null, 2));
const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));
const indent = (text: string) => text.split('\n').join('\n  ');
