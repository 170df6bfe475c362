/** A plain JSON object: not null, not an array. The one such check; every layer imports it. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
