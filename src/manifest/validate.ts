/**
 * Validation in two steps: the envelope (sections, names, entries with a `kind`), then each entry
 * against its kind's schema. Every finding of both steps is returned; nothing stops at the first.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { problems } from '../errors.js';
import { suggest } from '../util/suggest.js';
import { explainAjvErrors } from './ajv-errors.js';
import { conforms } from './conforms.js';
import { envelopeSchema, SINGULAR } from './envelope.js';
import { type Finding, isPlainObject } from './finding.js';
import { explainMisindents } from './misindent.js';
import { MANIFEST_AJV_OPTIONS, newAjv, precompiled } from './precompiled.js';
import { checkPropertySchemas, checkSchema } from './property-schemas.js';
import { ENTRY_SECTIONS, type EntrySection, type KindSchemas, type ManifestPath } from './types.js';

export class ManifestValidator {
  // strict off: user-written JSON Schemas (tool input) may use keywords ajv does not know.
  // verbose: errors carry their schema and data, which the messages quote.
  // Created only for a schema the build did not precompile (precompiled.ts).
  private ajv: Ajv | undefined;
  /** Kind schemas compiled once per validator, keyed by the schema object the registry hands out. */
  private readonly compiled = new WeakMap<object, ValidateFunction>();
  private envelope: object | undefined;

  validate(data: unknown, kinds: KindSchemas): Finding[] {
    this.envelope ??= envelopeSchema();
    const findings = this.invalid(data, this.envelope, 'the manifest envelope', 'envelope', []) ?? [];
    if (!isPlainObject(data)) return findings;
    for (const section of ENTRY_SECTIONS) {
      const entries = data[section];
      if (!isPlainObject(entries)) continue;
      // Once per section, not per entry: at 10,000 tools the copies were megabytes of garbage.
      const known = [...kinds.kinds(section)].sort();
      for (const [name, entry] of Object.entries(entries)) {
        // Entries the envelope rejected (not a mapping, no string kind) have nothing to check further.
        if (isPlainObject(entry) && typeof entry.kind === 'string') {
          findings.push(...this.validateEntry(section, name, entry, entry.kind, kinds, known));
        }
      }
    }
    return explainMisindents(findings, data, kinds).map((f) => withKindHint(f, kinds));
  }

  private validateEntry(
    section: EntrySection,
    name: string,
    entry: Record<string, unknown>,
    kind: string,
    kinds: KindSchemas,
    known: readonly string[],
  ): Finding[] {
    const schema = known.includes(kind) ? kinds.schema(section, kind) : undefined;
    if (!schema) {
      const problem = problems.MANIFEST_UNKNOWN_KIND(SINGULAR[section], kind, known, suggest(kind, known));
      return [{ path: [section, name, 'kind'], problem }];
    }
    const invalid = this.invalid(entry, schema, `${section} kind "${kind}"`, `${section}/${kind}`, [
      section,
      name,
    ]);
    if (invalid) return invalid;
    if (section !== 'tools') return [];
    return [
      ...checkPropertySchemas(entry.input, [section, name, 'input']),
      ...checkSchema(entry.inputSchema, [section, name, 'inputSchema']),
      ...checkSchema(entry.outputSchema, [section, name, 'outputSchema']),
    ];
  }

  /**
   * ajv's findings for `value`, or undefined when it conforms. A value that surely conforms
   * (conforms.ts) needs no validator, and a start with a valid manifest loads none.
   */
  private invalid(
    value: unknown,
    schema: object,
    what: string,
    key: string,
    at: ManifestPath,
  ): Finding[] | undefined {
    if (conforms(value, schema) === true) return undefined;
    const validate = this.compile(schema, what, key);
    return validate(value) ? undefined : explainAjvErrors(validate.errors ?? [], at, value);
  }

  private compile(schema: object, what: string, key: string): ValidateFunction {
    let fn = this.compiled.get(schema);
    if (!fn) {
      try {
        fn = precompiled({ key, dialect: 'draft-07', options: MANIFEST_AJV_OPTIONS, schema });
        if (fn === undefined) {
          this.ajv ??= newAjv(MANIFEST_AJV_OPTIONS);
          fn = this.ajv.compile(schema);
        }
      } catch (e) {
        // A kind shipped a broken schema: a bug in the kind, not in the manifest.
        throw new Error(`the schema of ${what} does not compile: ${(e as Error).message}`);
      }
      this.compiled.set(schema, fn);
    }
    return fn;
  }
}

/** A missing `kind` is more useful with the list of kinds to choose from. */
function withKindHint(f: Finding, kinds: KindSchemas): Finding {
  if (f.problem.code !== 'MANIFEST_MISSING_FIELD' || f.field !== 'kind' || f.path.length !== 2) return f;
  const known = [...kinds.kinds(f.path[0] as EntrySection)].sort();
  return { ...f, problem: { ...f.problem, hint: `add \`kind:\` with one of: ${known.join(', ')}` } };
}

/** Sections with a default kind (prompts → template) get it on entries that name none. */
export function applyDefaultKinds(data: unknown, kinds: KindSchemas): void {
  if (!isPlainObject(data)) return;
  for (const section of ENTRY_SECTIONS) {
    const fallback = kinds.defaultKind(section);
    const entries = data[section];
    if (!fallback || !isPlainObject(entries)) continue;
    for (const entry of Object.values(entries)) {
      if (isPlainObject(entry) && !('kind' in entry)) entry.kind = fallback;
    }
  }
}
