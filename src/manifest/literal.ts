/**
 * Text from outside the manifest (an imported API description, or anything a future importer
 * copies) written into a manifest as data. The loader resolves `${env:…}` and `${file:…}` in every
 * string value (resolve.ts), so a description saying `${env:DB_PASSWORD}` would otherwise become a
 * live reference whose value the server sends to every client. An importer builds its entries with
 * the text as it found it, marks the references it means with `reference()`, and passes the whole
 * tree through `manifestData()` once: every other string gets `$${` for `${`, which the loader reads
 * back as the literal text. Keys are never resolved, so they are left as they are.
 */

/** Manifest syntax written on purpose (a `${env:…}` the importer means), kept as it is. */
export class Reference {
  constructor(readonly text: string) {}
}

/**
 * `${env:NAME}`, or `${env:NAME:-fallback}`. Inside a fallback `$${` is no escape and the first `}`
 * ends it, so a fallback that holds `{` or `}` is refused here: the caller must encode it first
 * (a URL percent-encodes them, source.ts).
 */
export function reference(name: string, fallback?: string): Reference {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${JSON.stringify(name)}`);
  if (fallback === undefined) return new Reference(`\${env:${name}}`);
  if (/[{}]/.test(fallback)) {
    throw new Error(`a fallback cannot hold { or }: ${JSON.stringify(fallback)} (encode them first)`);
  }
  return new Reference(`\${env:${name}:-${fallback}}`);
}

/** The text as a manifest string value that resolves to exactly this text. */
export const literal = (text: string): string => text.split('${').join('$${');

/**
 * A copy of `value` ready to write into a manifest: strings as `literal`, `Reference`s as their
 * text, maps and lists copied (keys unchanged), anything else as it is.
 */
export function manifestData<T>(value: T): T {
  return convert(value) as T;
}

function convert(value: unknown): unknown {
  if (typeof value === 'string') return literal(value);
  if (value instanceof Reference) return value.text;
  if (Array.isArray(value)) return value.map(convert);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // A key `__proto__` is a property name like any other (JSON.parse makes it one), not a prototype.
    Object.defineProperty(out, key, {
      value: convert(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
