/**
 * Mistakes whose fix is known from habits other languages teach: a type named as in a programming
 * language (`int`, `bool`), a duration written with a unit (`"10s"`) where the manifest takes
 * milliseconds. Edit distance cannot find these ("int" is 4 edits from "integer"); a table can.
 */

/** Type names from programming languages and databases → the JSON Schema type they mean. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  int: 'integer',
  int32: 'integer',
  int64: 'integer',
  long: 'integer',
  bigint: 'integer',
  bool: 'boolean',
  str: 'string',
  text: 'string',
  float: 'number',
  double: 'number',
  decimal: 'number',
  list: 'array',
  tuple: 'array',
  dict: 'object',
  map: 'object',
  obj: 'object',
  hash: 'object',
  record: 'object',
  none: 'null',
  nil: 'null',
};

/** The JSON Schema type `name` means, when it is one of `allowed` under another name. */
export function typeAlias(name: string, allowed: readonly unknown[]): string | undefined {
  const meant = TYPE_ALIASES[name.toLowerCase()];
  return meant !== undefined && meant !== name && allowed.includes(meant) ? meant : undefined;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
};

/**
 * For a field that takes milliseconds (every such manifest field is named `…Ms`) given a string:
 * what to write instead. `"10s"` → "timeoutMs takes milliseconds: write 10000".
 */
export function millisecondsHint(field: string | number | undefined, value: unknown): string | undefined {
  if (typeof field !== 'string' || !field.endsWith('Ms') || typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const scale = unit === '' ? 1 : UNIT_MS[unit];
  if (scale === undefined) return undefined;
  const ms = Number(m[1]) * scale;
  if (!Number.isSafeInteger(ms)) return undefined;
  // A bare number in quotes is a string to YAML: the fix is the same number without them.
  const write = unit === '' ? `${ms} without quotes` : String(ms);
  return `${field} takes milliseconds: write ${write}`;
}
