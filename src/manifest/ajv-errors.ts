/**
 * Turns ajv's errors into findings a person can act on: one per real problem, pointing at the key
 * or value concerned, saying what was expected. ajv reports a failure for every branch of a
 * oneOf/anyOf and a parent error on top; those are collapsed to the branch that explains it.
 */
import type { ErrorObject } from 'ajv';
import { type Problem, problems } from '../errors.js';
import { suggest } from '../util/suggest.js';
import { describeOwner, describeSchema, describeValue, orList, show, typeWords } from './describe.js';
import { NAME_PATTERNS } from './envelope.js';
import { type Finding, isPlainObject } from './finding.js';
import { millisecondsHint, typeAlias } from './fix-hints.js';
import { ENTRY_SECTIONS, type EntrySection, type ManifestPath } from './types.js';

/** `errors` come from validating `root`, which sits at `base` in the manifest. */
export function explainAjvErrors(
  errors: readonly ErrorObject[],
  base: ManifestPath,
  root: unknown,
): Finding[] {
  const findings = collapseAlternatives(errors).map((e) =>
    explain(e, [...base, ...pointerToPath(e.instancePath, root)]),
  );
  // A misspelt required field shows up twice: unknown "sqll" and missing "sql". The first says it all.
  const suggested = new Set(
    findings.filter((f) => f.suggestion).map((f) => key(f.path.slice(0, -1), f.suggestion!)),
  );
  const seen = new Set<string>();
  return findings.filter((f) => {
    if (f.problem.code === 'MANIFEST_MISSING_FIELD' && suggested.has(key(f.path, f.field!))) return false;
    const id = key(f.path, `${f.problem.code} ${f.problem.message}`);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

const key = (path: ManifestPath, extra: string) => JSON.stringify([...path, extra]);

function explain(e: ErrorObject, path: ManifestPath): Finding {
  const p = e.params as Record<string, unknown>;
  const got = describeValue(e.data);
  const invalid = (message: string, hint?: string): Finding => ({
    path,
    problem: problems.MANIFEST_INVALID_VALUE(message, hint),
  });
  switch (e.keyword) {
    case 'required': {
      const field = String(p.missingProperty);
      return { path, at: 'key', field, problem: problems.MANIFEST_MISSING_FIELD(field, describeOwner(path)) };
    }
    case 'additionalProperties': {
      const field = String(p.additionalProperty);
      const known = Object.keys((e.parentSchema?.properties as object | undefined) ?? {});
      const suggestion = suggest(field, known);
      const problem = problems.MANIFEST_UNKNOWN_FIELD(field, describeOwner(path), known, suggestion);
      return { path: [...path, field], at: 'key', field, suggestion, problem };
    }
    case 'propertyNames': {
      const name = String(p.propertyName);
      const section = path.length === 1 ? (path[0] as EntrySection) : undefined;
      if (section && ENTRY_SECTIONS.includes(section)) {
        const problem: Problem = {
          ...problems.MANIFEST_INVALID_NAME(section.slice(0, -1), name, NAME_PATTERNS[section]),
          hint: 'use letters, digits, "_", "." and "-"',
        };
        return { path: [...path, name], at: 'key', problem };
      }
      return {
        path: [...path, name],
        at: 'key',
        problem: problems.MANIFEST_INVALID_VALUE(`invalid key ${show(name)}`),
      };
    }
    case 'type': {
      const quoteHint =
        wants(p.type, 'string') && ['number', 'boolean'].includes(typeof e.data)
          ? 'YAML reads this as a number or boolean; put it in quotes to make it a string'
          : undefined;
      const unitHint = wants(p.type, 'integer') ? millisecondsHint(path.at(-1), e.data) : undefined;
      return invalid(`expected ${typeWords(p.type)}, got ${got}`, quoteHint ?? unitHint);
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]) ?? [];
      // `type: int` is not a typo of "integer" but another language's name for it.
      const suggestion =
        typeof e.data === 'string'
          ? (typeAlias(e.data, allowed) ??
            suggest(
              e.data,
              allowed.filter((a) => typeof a === 'string'),
            ))
          : undefined;
      const mean = suggestion ? ` (did you mean ${show(suggestion)}?)` : '';
      return invalid(`expected one of ${allowed.map(show).join(', ')}; got ${got}${mean}`);
    }
    case 'const':
      return invalid(`expected ${show(p.allowedValue)}, got ${got}`);
    case 'pattern':
      return invalid(`expected a string matching ${p.pattern}, got ${got}`);
    case 'format':
      return invalid(`expected a ${p.format}, got ${got}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalid(`expected ${BOUNDS[e.keyword]} ${p.limit}, got ${show(e.data)}`);
    case 'minItems':
    case 'maxItems':
      return invalid(`expected ${BOUNDS[e.keyword]} ${p.limit} item(s), got ${count(e.data)}`);
    case 'minLength':
    case 'maxLength':
      return invalid(`expected ${BOUNDS[e.keyword]} ${p.limit} character(s), got ${count(e.data)}`);
    case 'minProperties':
    case 'maxProperties':
      return invalid(`expected ${BOUNDS[e.keyword]} ${p.limit} field(s), got ${count(e.data)}`);
    case 'uniqueItems':
      return invalid(`expected unique items, but items ${p.j} and ${p.i} are equal`);
    case 'dependentRequired':
    case 'dependencies':
      return {
        path,
        at: 'key',
        problem: problems.MANIFEST_MISSING_FIELD(String(p.missingProperty), describeOwner(path)),
      };
    case 'oneOf':
    case 'anyOf': {
      const forms = Array.isArray(e.schema) ? e.schema.map(describeSchema) : [];
      if (p.passingSchemas) return invalid(`matches more than one of the allowed forms: ${forms.join('; ')}`);
      // Naming the fields given shows at once why no alternative fits ({bearer, basic}, {bearr}).
      const fields = isPlainObject(e.data) ? Object.keys(e.data).map((k) => JSON.stringify(k)) : [];
      const given = fields.length ? `a mapping with ${fields.join(' and ')}` : got;
      return invalid(`expected ${orList(forms)}, got ${given}`);
    }
    case 'false schema':
      return { path, at: 'key', problem: problems.MANIFEST_INVALID_VALUE('this field is not allowed here') };
    default:
      return invalid(`invalid value: ${e.message ?? e.keyword}`);
  }
}

const BOUNDS: Readonly<Record<string, string>> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'more than',
  exclusiveMaximum: 'less than',
  minItems: 'at least',
  maxItems: 'at most',
  minLength: 'at least',
  maxLength: 'at most',
  minProperties: 'at least',
  maxProperties: 'at most',
};

const wants = (type: unknown, name: string) => (Array.isArray(type) ? type.includes(name) : type === name);

function count(data: unknown): number {
  if (typeof data === 'string' || Array.isArray(data)) return data.length;
  return data && typeof data === 'object' ? Object.keys(data).length : 0;
}

/** `/tools/x/input/0` → ['tools', 'x', 'input', 0]: indices become numbers where the data is a list. */
export function pointerToPath(pointer: string, root: unknown): (string | number)[] {
  if (!pointer) return [];
  let node = root;
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => {
      const s = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      const seg = Array.isArray(node) ? Number(s) : s;
      node = node && typeof node === 'object' ? (node as Record<string | number, unknown>)[seg] : undefined;
      return seg;
    });
}

/**
 * For each oneOf/anyOf (innermost first): if exactly one branch has the right shape (its type,
 * const or enum at the same place matched), keep only that branch's errors, which say what is
 * wrong inside it. If none does, keep only the parent ("expected X or Y"). If several do, keep the
 * branch with the fewest errors when it is the only one, otherwise the parent. `if` errors always go:
 * their `then` errors explain them. Errors inside `propertyNames` go: their parent names the key.
 */
function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  let list = errors.filter((e) => e.keyword !== 'if' && e.propertyName === undefined);
  const compounds = list
    .filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
    .sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const parent of compounds) {
    if (!list.includes(parent)) continue;
    const prefix = `${parent.schemaPath}/`;
    const children = list.filter((e) => e.schemaPath.startsWith(prefix));
    const branches = new Map<number, ErrorObject[]>();
    for (const e of children) {
      const index = Number(e.schemaPath.slice(prefix.length).split('/')[0]);
      branches.set(index, [...(branches.get(index) ?? []), e]);
    }
    const fitting = [...branches].filter(([i, errs]) => !errs.some((e) => isShapeMismatch(e, parent, i)));
    const fewest = Math.min(...fitting.map(([, errs]) => errs.length));
    const best = fitting.filter(([, errs]) => errs.length === fewest);
    const keep = !parent.params.passingSchemas && best.length === 1 ? best[0]![1] : undefined;
    list = list.filter((e) => (keep ? e !== parent : true) && (!children.includes(e) || keep?.includes(e)));
  }
  return list;
}

function isShapeMismatch(e: ErrorObject, parent: ErrorObject, branch: number): boolean {
  return (
    ['type', 'const', 'enum'].includes(e.keyword) &&
    e.instancePath === parent.instancePath &&
    e.schemaPath === `${parent.schemaPath}/${branch}/${e.keyword}`
  );
}
