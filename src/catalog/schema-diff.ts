/**
 * How a JSON Schema changed, as a caller sees it. Every finding is first an effect on the set of
 * values the schema allows (`wider`, `narrower`, `both` when neither holds, `note` for words only),
 * then a class by direction: an input schema is what the server accepts, so narrower breaks
 * callers; an output schema is what the server promises, so wider breaks them. Fields are the
 * exception in both directions: a removed field breaks (the caller sends it, or reads it), a new
 * input field breaks only when it is required.
 *
 * Handles `$ref` into the same document (`#/$defs/…`, `#/definitions/…`, a cycle is compared once),
 * `anyOf`/`oneOf` (alternatives matched first by equality, then in order), nested objects, arrays,
 * enums and bounds. What it cannot tell apart is `both`, so it counts as breaking: an unclassified
 * change is never reported as safe.
 */
import { isObject } from '../util/is-object.js';

export type ChangeClass = 'breaking' | 'additive' | 'changed';
export type SchemaSide = 'input' | 'output';

export interface SchemaFinding {
  readonly class: ChangeClass;
  /** Dotted path to the field (`customer.address.zip`, `tags[]`); empty for the schema itself. */
  readonly path: string;
  /** What happened there, e.g. `became required`, `maximum lowered from 100 to 50`. */
  readonly text: string;
}

type Effect = 'wider' | 'narrower' | 'both' | 'note' | 'default' | 'breaking' | 'additive';
type Node = Record<string, unknown>;

const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
/** Keywords that only constrain: added narrows, removed widens, changed is neither. */
const CONSTRAINTS = [
  'pattern',
  'format',
  'multipleOf',
  'not',
  'contains',
  'propertyNames',
  'dependentRequired',
];
/** Keywords read elsewhere (or words only) and left out of the "anything else" comparison. */
const HANDLED = new Set([
  ...UPPER,
  ...LOWER,
  ...CONSTRAINTS,
  'type',
  'enum',
  'const',
  'default',
  'description',
  'title',
  'examples',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'uniqueItems',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
  '$schema',
  '$id',
  '$comment',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** The findings between two schemas of one side of a tool; empty when they mean the same. */
export function compareSchemas(before: unknown, after: unknown, side: SchemaSide): SchemaFinding[] {
  const findings: SchemaFinding[] = [];
  const run: Run = { side, rootA: before, rootB: after, seen: new Set(), findings };
  compareNode(run, before, after, '');
  return findings;
}

interface Run {
  readonly side: SchemaSide;
  readonly rootA: unknown;
  readonly rootB: unknown;
  /** The `$ref` pairs being compared on the way down: a recursive schema is walked once. */
  readonly seen: Set<string>;
  readonly findings: SchemaFinding[];
}

function classOf(effect: Effect, side: SchemaSide): ChangeClass {
  switch (effect) {
    case 'note':
      return 'changed';
    case 'default':
      return side === 'input' ? 'breaking' : 'changed';
    case 'breaking':
    case 'both':
      return 'breaking';
    case 'additive':
      return 'additive';
    case 'wider':
      return side === 'input' ? 'additive' : 'breaking';
    case 'narrower':
      return side === 'input' ? 'breaking' : 'additive';
  }
}

function report(run: Run, path: string, effect: Effect, text: string): void {
  run.findings.push({ class: classOf(effect, run.side), path, text });
}

/** A boolean schema as an object: `true` allows anything, `false` nothing. */
function asNode(schema: unknown): Node {
  if (schema === false) return { not: {} };
  return isObject(schema) ? schema : {};
}

/** Follows `$ref`s into the document; `undefined` for one that does not resolve. */
function deref(schema: Node, root: unknown, trail: string[]): Node {
  let node = schema;
  for (let hops = 0; typeof node.$ref === 'string' && hops < 32; hops++) {
    const ref = node.$ref;
    trail.push(ref);
    const target = pointer(root, ref);
    if (target === undefined) return node;
    // Sibling keywords of a $ref apply too (2020-12): the target's, then the node's own.
    const { $ref: _ref, ...siblings } = node;
    node = { ...asNode(target), ...siblings };
  }
  return node;
}

function pointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(at) && !Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A `required` list of names: its order means nothing. */
export function isNameList(key: string, value: unknown): value is string[] {
  return key === 'required' && Array.isArray(value) && value.every((x) => typeof x === 'string');
}

/**
 * JSON with sorted keys, and `required` lists sorted: two schemas written in another order (fields
 * moved about in the manifest) are equal. `child` writes what is inside (src/catalog/diff.ts writes
 * a shared part once and refers to it).
 */
export function canonical(value: unknown, child: (value: unknown) => string = canonical): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => child(v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const item = (k: string) => {
    const v = record[k];
    return `${JSON.stringify(k)}:${child(isNameList(k, v) ? [...v].sort() : v)}`;
  };
  return `{${Object.keys(record)
    .sort()
    .map((k) => item(k))
    .join(',')}}`;
}

const show = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : canonical(value);
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

function compareNode(run: Run, a0: unknown, b0: unknown, path: string): void {
  const trailA: string[] = [];
  const trailB: string[] = [];
  const a = deref(asNode(a0), run.rootA, trailA);
  const b = deref(asNode(b0), run.rootB, trailB);
  // Equal text is an equal schema unless it refers elsewhere: the two documents' $defs may differ.
  const text = canonical(a);
  if (text === canonical(b) && !text.includes('"$ref"')) return;
  if (trailA.length === 0 && trailB.length === 0) {
    compareResolved(run, a, b, path);
    return;
  }
  // A recursive schema: a pair of references already being compared further up is not walked again.
  const key = `${trailA.join('>')}|${trailB.join('>')}`;
  if (run.seen.has(key)) return;
  run.seen.add(key);
  compareResolved(run, a, b, path);
  run.seen.delete(key);
}

function compareResolved(run: Run, a: Node, b: Node, path: string): void {
  const [ua, ub] = [unionOf(a) !== undefined, unionOf(b) !== undefined];
  if ((ua && ub) || (ua && besideUnion(a)) || (ub && besideUnion(b))) {
    // The keywords beside a union (`type`, `properties`, …) apply to every alternative: they are
    // compared as a schema of their own, then the alternatives (a plain schema's: anything).
    compareUnions(run, ua ? a : ANYTHING, ub ? b : ANYTHING, path);
    compareResolved(run, ua ? withoutUnion(a) : a, ub ? withoutUnion(b) : b, path);
    return;
  }
  if (ua || ub) {
    // A plain schema against a bare union: it is one alternative, compared with theirs.
    compareUnions(run, a, b, path);
    compareWords(run, a, b, path);
    return;
  }
  compareTypes(run, a.type, b.type, path);
  compareEnums(run, a, b, path);
  compareObjects(run, a, b, path);
  if (a.items !== undefined || b.items !== undefined) {
    if (Array.isArray(a.items) || Array.isArray(b.items)) {
      if (canonical(a.items) !== canonical(b.items)) report(run, path, 'both', 'tuple items changed');
    } else compareNode(run, a.items ?? {}, b.items ?? {}, `${path}[]`);
  }
  compareBounds(run, a, b, path);
  for (const key of CONSTRAINTS) compareConstraint(run, key, a[key], b[key], path);
  if (a.uniqueItems !== b.uniqueItems) {
    report(
      run,
      path,
      b.uniqueItems === true ? 'narrower' : 'wider',
      `uniqueItems ${b.uniqueItems === true ? 'now required' : 'dropped'}`,
    );
  }
  if (canonical(a.allOf) !== canonical(b.allOf)) {
    const [x, y] = [arrayOf(a.allOf), arrayOf(b.allOf)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) compareNode(run, x[i], y[i], path);
    if (y.length > x.length) report(run, path, 'narrower', 'allOf gained a schema');
    if (y.length < x.length) report(run, path, 'wider', 'allOf lost a schema');
  }
  compareWords(run, a, b, path);
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (HANDLED.has(key) || key.startsWith('x-')) continue;
    if (canonical(a[key]) !== canonical(b[key])) report(run, path, 'both', `\`${key}\` changed`);
  }
}

/** The default (a behaviour for inputs) and the words. */
function compareWords(run: Run, a: Node, b: Node, path: string): void {
  if (canonical(a.default) !== canonical(b.default)) {
    const text =
      a.default === undefined
        ? `default ${show(b.default)} added`
        : b.default === undefined
          ? `default ${show(a.default)} removed`
          : `default changed from ${show(a.default)} to ${show(b.default)}`;
    report(run, path, 'default', text);
  }
  for (const key of ['description', 'title'] as const) {
    if (a[key] !== b[key]) report(run, path, 'note', `${key} changed`);
  }
}

const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const ANYTHING: Node = { anyOf: [{}] };
/** Keywords that constrain nothing: a union beside only these is a bare union. */
const INERT = new Set([
  'description',
  'title',
  'default',
  'examples',
  '$comment',
  '$defs',
  'definitions',
  '$schema',
  '$id',
  'readOnly',
  'writeOnly',
  'deprecated',
]);
const besideUnion = (node: Node): boolean =>
  Object.keys(withoutUnion(node)).some((k) => !INERT.has(k) && !k.startsWith('x-'));

/** The node without the union `unionOf` reads (a second one, `oneOf` beside `anyOf`, stays). */
function withoutUnion(node: Node): Node {
  const { [Array.isArray(node.anyOf) ? 'anyOf' : 'oneOf']: _union, ...rest } = node;
  return rest;
}
const unionOf = (node: Node): unknown[] | undefined =>
  Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;

/** `type` as a set; absent allows every type. `integer` is inside `number`. */
function compareTypes(run: Run, a: unknown, b: unknown, path: string): void {
  if (canonical(a) === canonical(b)) return;
  const set = (t: unknown) => (t === undefined ? undefined : new Set(Array.isArray(t) ? t : [t]));
  const [x, y] = [set(a), set(b)];
  const covers = (outer: Set<unknown> | undefined, inner: Set<unknown> | undefined) =>
    outer === undefined ||
    (inner !== undefined &&
      [...inner].every((t) => outer.has(t) || (t === 'integer' && outer.has('number'))));
  const text = `type changed from ${a === undefined ? 'any' : show(a)} to ${b === undefined ? 'any' : show(b)}`;
  if (covers(y, x)) report(run, path, 'wider', text.replace('changed', 'widened'));
  else if (covers(x, y)) report(run, path, 'narrower', text.replace('changed', 'narrowed'));
  else report(run, path, 'both', text);
}

/** `enum` (and `const`, an enum of one) as a set of values; absent allows any value. */
function compareEnums(run: Run, a: Node, b: Node, path: string): void {
  const values = (n: Node) =>
    Array.isArray(n.enum) ? n.enum : n.const !== undefined ? [n.const] : undefined;
  const [x, y] = [values(a), values(b)];
  if (canonical(x) === canonical(y)) return;
  if (x === undefined || y === undefined) {
    if (x === undefined) report(run, path, 'narrower', `now limited to ${show(y)}`);
    else report(run, path, 'wider', `no longer limited to ${show(x)}`);
    return;
  }
  const [sx, sy] = [new Set(x.map((v) => canonical(v))), new Set(y.map((v) => canonical(v)))];
  const added = y.filter((v) => !sx.has(canonical(v)));
  const removed = x.filter((v) => !sy.has(canonical(v)));
  if (removed.length > 0) report(run, path, 'narrower', `enum lost ${removed.map(show).join(', ')}`);
  if (added.length > 0) report(run, path, 'wider', `enum gained ${added.map(show).join(', ')}`);
}

function compareObjects(run: Run, a: Node, b: Node, path: string): void {
  const pa = isObject(a.properties) ? a.properties : {};
  const pb = isObject(b.properties) ? b.properties : {};
  const ra = new Set(arrayOf(a.required).map(String));
  const rb = new Set(arrayOf(b.required).map(String));
  for (const key of Object.keys(pa)) {
    const at = join(path, key);
    if (!(key in pb)) report(run, at, 'breaking', 'removed');
    else compareNode(run, pa[key], pb[key], at);
  }
  for (const key of Object.keys(pb)) {
    if (key in pa) continue;
    const required = rb.has(key);
    const effect = run.side === 'output' ? 'additive' : required ? 'breaking' : 'additive';
    report(run, join(path, key), effect, required ? 'added (required)' : 'added (optional)');
  }
  // A key in `required` counts whether or not `properties` names it (only a field added or
  // removed here is already reported): required on input refuses callers that leave it out;
  // on output, a key no longer required is no longer promised.
  for (const key of rb) {
    if (!ra.has(key) && (key in pa || !(key in pb)))
      report(run, join(path, key), 'narrower', 'became required');
  }
  for (const key of ra) {
    if (!rb.has(key) && (key in pb || !(key in pa))) report(run, join(path, key), 'wider', 'became optional');
  }
  const [xa, xb] = [a.additionalProperties, b.additionalProperties];
  if (canonical(xa) === canonical(xb)) return;
  if (xb === false) report(run, path, 'narrower', 'no longer accepts other fields');
  else if (xa === false) report(run, path, 'wider', 'now accepts other fields');
  else compareNode(run, xa ?? {}, xb ?? {}, join(path, '*'));
}

function compareBounds(run: Run, a: Node, b: Node, path: string): void {
  for (const [keys, looser] of [
    [UPPER, (x: number, y: number) => y > x],
    [LOWER, (x: number, y: number) => y < x],
  ] as const) {
    for (const key of keys) {
      const [x, y] = [a[key], b[key]];
      if (x === y) continue;
      if (typeof x !== 'number') report(run, path, 'narrower', `${key} ${show(y)} added`);
      else if (typeof y !== 'number') report(run, path, 'wider', `${key} ${show(x)} removed`);
      else {
        const wider = looser(x, y);
        report(
          run,
          path,
          wider ? 'wider' : 'narrower',
          `${key} ${y > x ? 'raised' : 'lowered'} from ${x} to ${y}`,
        );
      }
    }
  }
}

function compareConstraint(run: Run, key: string, x: unknown, y: unknown, path: string): void {
  if (canonical(x) === canonical(y)) return;
  if (x === undefined) report(run, path, 'narrower', `${key} ${show(y)} added`);
  else if (y === undefined) report(run, path, 'wider', `${key} ${show(x)} removed`);
  else report(run, path, 'both', `${key} changed from ${show(x)} to ${show(y)}`);
}

/**
 * Alternatives: a schema without `anyOf`/`oneOf` is one alternative. Equal alternatives pair up
 * first; the rest pair in order and are compared; an alternative left over was added or removed.
 */
function compareUnions(run: Run, a: Node, b: Node, path: string): void {
  const branches = (n: Node): unknown[] => {
    const union = unionOf(n);
    if (union) return union;
    const { description: _d, title: _t, default: _f, ...rest } = n;
    return [rest];
  };
  const x = branches(a).map((s) => ({ s, key: canonical(deref(asNode(s), run.rootA, [])) }));
  const y = branches(b).map((s) => ({ s, key: canonical(deref(asNode(s), run.rootB, [])) }));
  const restA = x.filter((e) => !y.some((f) => f.key === e.key));
  const restB = y.filter((f) => !x.some((e) => e.key === f.key));
  const paired = Math.min(restA.length, restB.length);
  for (let i = 0; i < paired; i++) compareNode(run, restA[i]?.s, restB[i]?.s, path);
  for (const extra of restB.slice(paired))
    report(run, path, 'wider', `gained the alternative ${describe(extra.key)}`);
  for (const gone of restA.slice(paired))
    report(run, path, 'narrower', `lost the alternative ${describe(gone.key)}`);
}

function describe(key: string): string {
  return key.length <= 80 ? key : `${key.slice(0, 77)}...`;
}
