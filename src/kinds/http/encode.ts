/**
 * How the arguments of an `http` tool become a request: query pairs (arrays repeat the name), the
 * body in its declared encoding, and the annotations a method implies.
 */

import { isObject } from '../../util/is-object.js';
import type { ToolAnnotations } from '../contract/types.js';

/** The Content-Type of each bodyType, unless the tool sets its own. */
export const CONTENT_TYPES = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  text: 'text/plain; charset=utf-8',
};

/** GET/HEAD only read, DELETE destroys, the idempotent methods repeat safely; loopback is not the open world. */
export function impliedAnnotations(method: string, loopback: boolean): ToolAnnotations {
  return {
    ...((method === 'GET' || method === 'HEAD') && { readOnlyHint: true }),
    ...(method === 'DELETE' && { destructiveHint: true }),
    ...(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method) && { idempotentHint: true }),
    openWorldHint: !loopback,
  };
}

/** The named arguments that were given, as an object (for the automatic query or body). */
export function pickArgs(
  names: readonly string[],
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]));
}

/** Object → [name, value] pairs; arrays repeat the name, null and absent entries are left out. */
export function queryPairs(data: unknown): [string, string][] {
  if (!isObject(data)) return [];
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(data)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== null && item !== undefined) pairs.push([name, scalar(item)]);
    }
  }
  return pairs;
}

export function encodeBody(type: 'json' | 'form' | 'text', data: unknown): string {
  if (type === 'json') return JSON.stringify(data);
  if (type === 'form') return new URLSearchParams(queryPairs(data)).toString();
  return scalar(data);
}

export const scalar = (v: unknown): string =>
  typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
