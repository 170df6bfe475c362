/** Small readers for request params: each failure is a -32602 that names the field and the method. */
import { invalidParams, isObject } from './jsonrpc.js';

export function requireString(params: Record<string, unknown>, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw invalidParams(`${method} needs "${key}" (a string)`);
  return value;
}

export function requireObject(
  params: Record<string, unknown>,
  key: string,
  method: string,
): Record<string, unknown> {
  const value = params[key];
  if (!isObject(value)) throw invalidParams(`${method} needs "${key}" (an object)`);
  return value;
}

/** An optional `Record<string, string>` (prompt arguments, completion context); absent means empty. */
export function optionalStringRecord(value: unknown, what: string): Readonly<Record<string, string>> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalidParams(`${what} must be an object of strings`);
  for (const key in value) {
    if (typeof value[key] !== 'string') throw invalidParams(`${what}.${key} must be a string`);
  }
  return value as Record<string, string>;
}
