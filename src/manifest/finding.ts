/**
 * A problem found at a path of the manifest, before it has a position. The loader turns findings
 * into diagnostics (file:line:col, dotted path, code frame) once, at the end, so that every step can
 * stay a pure function of the parsed data.
 */
import type { Problem } from '../errors.js';
import type { ManifestPath } from './types.js';

export interface Finding {
  readonly path: ManifestPath;
  readonly problem: Problem;
  /** Point at the key of the last path segment rather than at its value (the default). */
  readonly at?: 'key' | 'value';
  /** Text inside the value to put the caret on, e.g. the `${env:NAME` of a missing variable. */
  readonly needle?: string;
  /** For MANIFEST_MISSING_FIELD and MANIFEST_UNKNOWN_FIELD: the field concerned. */
  readonly field?: string;
  /** For MANIFEST_UNKNOWN_FIELD: the suggested field, if any. */
  readonly suggestion?: string;
  /** Other places the problem leaves incomplete (a misindented key's home): their entries are not compiled either. */
  readonly alsoAt?: readonly ManifestPath[];
}

export { isObject as isPlainObject } from '../util/is-object.js';
