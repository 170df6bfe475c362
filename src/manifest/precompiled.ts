/**
 * Validators compiled at build time (ajv standalone code, written by `npm run build` through
 * scripts/precompile-schemas.mjs into dist/manifest/precompiled/). Compiling the manifest's own
 * schemas with ajv was the largest part of start-up; the build does it once instead.
 *
 * Each generated file carries the fingerprint of the schema and options it was compiled from (their
 * JSON text itself: comparing it costs less than hashing it would, and cannot collide), and a
 * validator is used only when that fingerprint matches the schema asked for, so a stale or missing
 * file (running from src/, a kind added by a test) falls back to compiling, never to a wrong check.
 */
import { fileURLToPath } from 'node:url';
import type { Ajv, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { BUILD_ROOT } from '../util/build-root.js';
import { requireWithCodeCache } from '../util/code-cache.cjs';
import { requireOnUse } from '../util/require-on-use.js';

/** The options of the manifest validator (manifest/validate.ts): its messages quote schema and data. */
export const MANIFEST_AJV_OPTIONS = { allErrors: true, strict: false, verbose: true, logger: false } as const;
/** The meta-schema check of a tool's `input:` properties and `outputSchema` (property-schemas.ts). */
export const META_CHECK_OPTIONS = MANIFEST_AJV_OPTIONS;
/**
 * User schemas at run time (user-schemas.ts). useDefaults fills declared defaults into the
 * arguments; strict off because user schemas may carry annotations ajv does not know.
 */
export const USER_SCHEMA_OPTIONS = {
  allErrors: true,
  useDefaults: true,
  strict: false,
  validateFormats: false,
} as const;

export const META_2020 = 'https://json-schema.org/draft/2020-12/schema';

export type Dialect = 'draft-07' | '2020-12';

/** One validator the build compiles: `schema` is a schema object, or the URI of a meta-schema. */
export interface PrecompileTarget {
  readonly key: string;
  readonly dialect: Dialect;
  readonly options: object;
  readonly schema: object | string;
}

/** The two checks against the 2020-12 meta-schema, by the options each caller compiles with. */
export const META_TARGETS: readonly PrecompileTarget[] = [
  { key: 'meta-2020-12-check', dialect: '2020-12', options: META_CHECK_OPTIONS, schema: META_2020 },
  { key: 'meta-2020-12-user', dialect: '2020-12', options: USER_SCHEMA_OPTIONS, schema: META_2020 },
];

export function fingerprint(target: Omit<PrecompileTarget, 'key'>): string {
  return JSON.stringify([target.dialect, target.options, target.schema]);
}

/** The file of `key`, relative to the manifest family's folder: `tools/content` → `precompiled/tools-content.cjs`. */
export function precompiledFile(key: string): string {
  return `precompiled/${key.replaceAll('/', '-')}.cjs`;
}

const load = requireOnUse(import.meta.url);

/**
 * ajv itself, loaded when something is compiled at run time (a tool's input schema on its first
 * call, a schema the build did not precompile): a start that needs neither does not load it.
 */
export function newAjv(options: object): Ajv {
  const { Ajv: Draft07 } = load('ajv') as typeof import('ajv');
  return new Draft07(options);
}
/** Loads ajv's 2020-12 dialect, which tool arguments are checked with, before a call needs it. */
export function preloadAjv2020(): void {
  load('ajv/dist/2020.js');
}
export function newAjv2020(options: object): Ajv2020 {
  const { Ajv2020: Dialect2020 } = load('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  return new Dialect2020(options);
}
/** By target object: the meta-schema targets are constants, asked once per schema checked. */
const found = new WeakMap<PrecompileTarget, ValidateFunction | null>();

/** The build's validator for `target`, if the build compiled this very schema with these options. */
export function precompiled(target: PrecompileTarget): ValidateFunction | undefined {
  let validate = found.get(target);
  if (validate === undefined) {
    try {
      const mod = requireWithCodeCache(
        fileURLToPath(new URL(`manifest/${precompiledFile(target.key)}`, BUILD_ROOT)),
      ) as ValidateFunction & { fingerprint?: string };
      validate = mod.fingerprint === fingerprint(target) ? mod : null;
    } catch {
      validate = null;
    }
    found.set(target, validate);
  }
  return validate ?? undefined;
}

/** The precompiled 2020-12 meta-schema check for `schema`, when it names no other dialect. */
export function precompiledMeta(
  key: 'meta-2020-12-check' | 'meta-2020-12-user',
  schema: unknown,
): ValidateFunction | undefined {
  const dialect = (schema as { $schema?: unknown } | null)?.$schema;
  if (dialect !== undefined && dialect !== META_2020 && dialect !== `${META_2020}#`) return undefined;
  return precompiled(key === 'meta-2020-12-check' ? META_TARGETS[0]! : META_TARGETS[1]!);
}
