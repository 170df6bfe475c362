/**
 * OpenAPI Overlay 1.0 (`--overlay FILE`, repeatable): edits an API description before it is
 * converted, so a fix to someone else's description (a better summary, a removed internal path, a
 * missing operationId) is kept in a file of its own and survives every re-import.
 *
 * Each action's `target` is an RFC 9535 JSONPath, as Overlay 1.0 says, evaluated by
 * jsonpath-rfc9535 (which passes the JSONPath compliance suite and has no dependencies): the
 * filters the spec's examples use (`[?@.name=='x']`, `[?@.x-internal]`) and wildcards are the
 * standard grammar, not a subset of our own. Actions apply in order, each to the result of the
 * ones before it:
 *
 * - `remove: true` takes every selected node out of the object or array that holds it;
 * - else `update` is merged into every selected object (objects recursively, any other value
 *   replaced) or appended to every selected array (a list is appended item by item).
 *
 * An action that selects nothing is a warning, not an error: the description it was written for
 * may have changed.
 */
import { exec } from 'jsonpath-rfc9535';
import { problems } from '../errors.js';
import { ImportError, isObj, type Obj, readDocument } from './load.js';

export interface OverlayResult {
  readonly warnings: readonly string[];
}

type Path = (string | number)[];

/** Applies the overlay in `file` to `doc`, in place. */
export function applyOverlay(doc: Obj, file: string): OverlayResult {
  const overlay = readDocument(file);
  const invalid = (reason: string) => new ImportError(problems.OPENAPI_OVERLAY_INVALID(reason), 1, file);
  if (!isObj(overlay) || typeof overlay.overlay !== 'string' || !/^1\.0\.\d+$/.test(overlay.overlay)) {
    throw invalid('it needs `overlay: 1.0.x` at the top');
  }
  if (!Array.isArray(overlay.actions) || overlay.actions.length === 0) {
    throw invalid('it needs `actions:`, a list of at least one action');
  }
  const warnings: string[] = [];
  overlay.actions.forEach((action: unknown, i: number) => {
    const where = `actions[${i}]`;
    if (!isObj(action) || typeof action.target !== 'string' || !action.target.startsWith('$')) {
      throw invalid(`${where} needs a \`target\`, a JSONPath starting with $`);
    }
    if (action.remove !== undefined && typeof action.remove !== 'boolean') {
      throw invalid(`${where}.remove is true or false`);
    }
    const found: Path[] = [];
    try {
      exec(doc as Parameters<typeof exec>[0], action.target, (_value, path) => found.push([...path]));
    } catch (err) {
      throw invalid(
        `${where}.target ${JSON.stringify(action.target)} is not a JSONPath: ${(err as Error).message}`,
      );
    }
    if (found.length === 0) {
      warnings.push(`overlay ${where} (${action.target}) selects nothing in the description`);
      return;
    }
    if (action.remove === true) {
      if (found.some((path) => path.length === 0)) throw invalid(`${where} cannot remove the whole document`);
      // The last first: removing an array item must not shift the indexes of the others selected.
      for (const path of found.sort(compareDeepestLast).reverse()) removeAt(doc, path);
      return;
    }
    if (action.update === undefined) return;
    for (const path of found) {
      const target = valueAt(doc, path);
      if (Array.isArray(target)) {
        target.push(
          ...(Array.isArray(action.update)
            ? structuredClone(action.update)
            : [structuredClone(action.update)]),
        );
      } else if (isObj(target) && isObj(action.update)) {
        mergeInto(target, action.update);
      } else {
        throw invalid(
          `${where}.update: the target ${JSON.stringify(action.target)} is not an object or an array that an update can go into`,
        );
      }
    }
  });
  return { warnings };
}

function mergeInto(target: Obj, update: Obj): void {
  for (const [key, value] of Object.entries(update)) {
    const old = target[key];
    if (isObj(old) && isObj(value)) mergeInto(old, value);
    else target[key] = structuredClone(value);
  }
}

function valueAt(doc: unknown, path: Path): unknown {
  let at = doc;
  for (const key of path) at = (at as Record<string | number, unknown>)[key];
  return at;
}

function removeAt(doc: unknown, path: Path): void {
  const parent = valueAt(doc, path.slice(0, -1));
  const key = path[path.length - 1] as string | number;
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
  else if (isObj(parent)) delete parent[String(key)];
}

/** Paths in document order, so that reversed, later array items go before earlier ones. */
function compareDeepestLast(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}
