/** A copy without the keys whose value is undefined, for descriptors sent over the wire. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
