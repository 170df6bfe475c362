/** Words for values, types and schemas in error messages: "expected an integer, got a string ("ten")". */
import { SINGULAR } from './envelope.js';
import { isPlainObject } from './finding.js';
import { dottedPath } from './frame.js';
import { ENTRY_SECTIONS, type EntrySection, type ManifestPath } from './types.js';

const TYPE_WORDS: Readonly<Record<string, string>> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'an empty value',
};

const PLURALS: Readonly<Record<string, string>> = {
  object: 'mappings',
  array: 'lists',
  string: 'strings',
  integer: 'integers',
  number: 'numbers',
  boolean: 'booleans',
};

export const typeWord = (type: string): string => TYPE_WORDS[type] ?? type;

export function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type.map(String) : [String(type)];
  return orList(types.map(typeWord));
}

export const orList = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

/** JSON for a value in a message, cut short: a long SQL string would bury the sentence. */
export function show(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}…` : json;
}

/** "a string ("ten")", "a list", "an empty value". */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'a mapping';
  if (typeof value === 'string') return `a string (${show(value)})`;
  if (typeof value === 'number') return `a number (${value})`;
  if (typeof value === 'boolean') return `${value}`;
  return typeof value;
}

/** A short description of one alternative of a oneOf/anyOf, for "expected X or Y". */
export function describeSchema(schema: unknown): string {
  if (!isPlainObject(schema)) return 'an allowed form';
  if ('const' in schema) return show(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(show).join(', ')}`;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  if (schema.type === 'object' && required.length) {
    return `a mapping with ${required.map((r) => JSON.stringify(r)).join(' and ')}`;
  }
  const itemType = isPlainObject(schema.items) ? schema.items.type : undefined;
  if (schema.type === 'array' && typeof itemType === 'string' && PLURALS[itemType]) {
    return `a list of ${PLURALS[itemType]}`;
  }
  if (schema.type !== undefined) return typeWords(schema.type);
  return 'an allowed form';
}

/** Who owns a field, for messages: `tool "x"`, `input.limit of tool "x"`, `server`, `the manifest`. */
export function describeOwner(path: ManifestPath): string {
  const [head, name, ...rest] = path;
  if (head === undefined) return 'the manifest';
  if (ENTRY_SECTIONS.includes(head as EntrySection)) {
    if (name === undefined) return `the ${head} section`;
    const entry = `${SINGULAR[head as EntrySection]} ${JSON.stringify(String(name))}`;
    return rest.length ? `${dottedPath(rest)} of ${entry}` : entry;
  }
  return dottedPath(path);
}
