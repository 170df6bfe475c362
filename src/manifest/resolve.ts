/**
 * `${env:NAME}` and `${env:NAME:-default}` in string values, resolved on the parsed tree after
 * validation: never in the raw text (a secret could then change the YAML structure, or match inside
 * a comment), never in keys, never in an entry's `kind`. `$${` writes a literal `${`.
 *
 * `${file:/run/secrets/name}` is the content of a file (Docker and Kubernetes secrets), read when the
 * manifest loads: at most MAX_SECRET_FILE_BYTES, trailing line breaks removed, a relative path taken
 * from the manifest's folder. Its value is a secret like an environment value, and the file is
 * watched by hot reload, so a rotated secret is picked up.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { problems } from '../errors.js';
import type { Finding } from './finding.js';
import { DESCEND, rewriteTree } from './rewrite-tree.js';
import { ENTRY_SECTIONS, type EntrySection, type ManifestPath } from './types.js';

export interface Resolved {
  readonly data: unknown;
  /** Values taken from the environment (defaults are not secrets), for the logger to redact. */
  readonly secrets: readonly string[];
  readonly findings: readonly Finding[];
  /** The absolute paths of the `${file:…}` references, read or not: hot reload watches them. */
  readonly files: readonly string[];
}

/** A secret file is a token or a password, not a document: a larger one is refused. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?$/;
const OPEN = '${env:';
const FILE_OPEN = '${file:';

/** `baseDir`: the manifest's folder, for relative `${file:…}` paths. */
export function resolveEnv(data: unknown, env: NodeJS.ProcessEnv, baseDir = process.cwd()): Resolved {
  const secrets = new Set<string>();
  const findings: Finding[] = [];
  const files = new Set<string>();

  const readSecretFile = (raw: string, path: ManifestPath): string => {
    const given = raw.slice(FILE_OPEN.length, -1);
    if (given === '') {
      findings.push({ path, needle: raw, problem: problems.SECRET_FILE_UNREADABLE(raw, 'no path is given') });
      return raw;
    }
    const file = isAbsolute(given) ? given : resolvePath(baseDir, given);
    files.add(file);
    let text: string;
    try {
      const info = statSync(file);
      if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
      if (info.size > MAX_SECRET_FILE_BYTES)
        throw Object.assign(new Error(`larger than ${MAX_SECRET_FILE_BYTES} bytes`), { code: 'EFBIG' });
      text = readFileSync(file, 'utf8');
    } catch (err) {
      findings.push({ path, needle: raw, problem: problems.SECRET_FILE_UNREADABLE(file, fileReason(err)) });
      return '';
    }
    const value = text.replace(/(\r?\n)+$/, '');
    if (value) secrets.add(value);
    return value;
  };

  const resolveString = (text: string, path: ManifestPath): string => {
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (text.startsWith('$${', i)) {
        out += '${';
        i += 3;
      } else if (text.startsWith(FILE_OPEN, i)) {
        const close = text.indexOf('}', i);
        const raw = close < 0 ? text.slice(i) : text.slice(i, close + 1);
        if (close < 0) {
          findings.push({ path, needle: raw, problem: malformed(raw) });
          out += raw;
        } else out += readSecretFile(raw, path);
        i += raw.length;
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

  // A string gets a copy of its path only when it holds a reference, which is rare (a path per
  // node was most of a big manifest's garbage); the tree is copied only on the way to one.
  const resolved = rewriteTree(data, (node, at) => {
    if (typeof node !== 'string') return DESCEND;
    return !node.includes('${') || isEntryKind(at) ? node : resolveString(node, [...at]);
  });

  return { data: resolved, secrets: [...secrets], findings, files: [...files] };
}

const isEntryKind = (path: ManifestPath) =>
  path.length === 3 && path[2] === 'kind' && ENTRY_SECTIONS.includes(path[0] as EntrySection);

function malformed(raw: string) {
  return problems.MANIFEST_INVALID_VALUE(
    `malformed environment reference ${JSON.stringify(raw)}: expected \${env:NAME} or \${env:NAME:-default}, NAME made of letters, digits and _, not starting with a digit, or \${file:/path/to/secret}`,
    'write $${ for a literal ${',
  );
}

function fileReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR' || code === 'ENOTFILE') return 'not a file';
  return (err as Error).message;
}
