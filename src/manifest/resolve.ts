/**
 * `${env:NAME}` and `${env:NAME:-default}` in string values, resolved on the parsed tree after
 * validation: never in the raw text (a secret could then change the YAML structure, or match inside
 * a comment), never in keys, never in an entry's `kind`. `$${` writes a literal `${`.
 */
import { problems } from '../errors.js';
import { type Finding, isPlainObject } from './finding.js';
import { ENTRY_SECTIONS, type EntrySection, type ManifestPath } from './types.js';

export interface Resolved {
  readonly data: unknown;
  /** Values taken from the environment (defaults are not secrets), for the logger to redact. */
  readonly secrets: readonly string[];
  readonly findings: readonly Finding[];
}

const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?$/;
const OPEN = '${env:';

export function resolveEnv(data: unknown, env: NodeJS.ProcessEnv): Resolved {
  const secrets = new Set<string>();
  const findings: Finding[] = [];

  const resolveString = (text: string, path: ManifestPath): string => {
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (text.startsWith('$${', i)) {
        out += '${';
        i += 3;
      } else if (text.startsWith(OPEN, i)) {
        const close = text.indexOf('}', i);
        const match = close < 0 ? null : REFERENCE.exec(text.slice(i + OPEN.length, close));
        const raw = close < 0 ? text.slice(i) : text.slice(i, close + 1);
        if (!match) {
          findings.push({ path, needle: raw, problem: malformed(raw) });
          out += raw;
          i += raw.length;
          continue;
        }
        const [, name = '', fallback] = match;
        const value = env[name];
        // As in the shell, `:-` also covers a variable that is set but empty.
        if (value !== undefined && (value !== '' || fallback === undefined)) {
          if (value) secrets.add(value);
          out += value;
        } else if (fallback !== undefined) {
          out += fallback;
        } else {
          findings.push({ path, needle: `${OPEN}${name}`, problem: problems.ENV_MISSING(name) });
        }
        i = close + 1;
      } else {
        out += text[i];
        i += 1;
      }
    }
    return out;
  };

  const walk = (node: unknown, path: ManifestPath): unknown => {
    if (typeof node === 'string') return isEntryKind(path) ? node : resolveString(node, path);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (isPlainObject(node)) {
      // fromEntries defines own properties, so a `__proto__` key stays a plain key.
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    return node;
  };

  return { data: walk(data, []), secrets: [...secrets], findings };
}

const isEntryKind = (path: ManifestPath) =>
  path.length === 3 && path[2] === 'kind' && ENTRY_SECTIONS.includes(path[0] as EntrySection);

function malformed(raw: string) {
  return problems.MANIFEST_INVALID_VALUE(
    `malformed environment reference ${JSON.stringify(raw)}: expected \${env:NAME} or \${env:NAME:-default}, NAME made of letters, digits and _, not starting with a digit`,
    'write $${ for a literal ${',
  );
}
