/**
 * Path templates of `http` tools (and the OpenAPI importer's check that a path becomes one): `/repos/{owner}/{repo}/issues/{number}`. Each `{name}` is an
 * argument, percent-encoded with encodeURIComponent, so a value can never add a segment, start a
 * query or fragment, or name another host: `/`, `?`, `#`, `%` and `@` all arrive encoded. Values
 * that would make a whole segment `.` or `..` are refused, so a value cannot climb either.
 */

export interface PathTemplate {
  /** Parameter names in order of occurrence. */
  readonly params: readonly string[];
  /** The encoded path; throws PathValueError for a value that cannot go in a path. */
  render(args: Readonly<Record<string, unknown>>): string;
}

export class PathValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathValueError';
  }
}

/** RFC 3986 pchar plus `/` and `%`: what a literal part of the path may contain. */
const LITERAL = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
const PLACEHOLDER = /\{([^{}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses a path template; throws an Error whose message says what is wrong. */
export function parsePathTemplate(path: string): PathTemplate {
  if (!path.startsWith('/')) throw new Error('the path must start with "/"');
  if (path.startsWith('//')) throw new Error('the path may not start with "//"');
  const literals: string[] = [];
  const params: string[] = [];
  let last = 0;
  for (const match of path.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    if (!NAME.test(name)) throw new Error(`"{${name}}" is not a parameter name (letters, digits and _)`);
    literals.push(path.slice(last, match.index));
    params.push(name);
    last = match.index! + match[0].length;
  }
  literals.push(path.slice(last));
  for (const literal of literals) {
    if (/[?#]/.test(literal)) throw new Error('the path may not contain "?" or "#"; declare query: instead');
    if (/[{}]/.test(literal)) throw new Error('unbalanced "{" or "}" in the path');
    if (!LITERAL.test(literal)) {
      throw new Error('the path has characters that must be percent-encoded (spaces, quotes, non-ASCII)');
    }
  }
  const template = literals.reduce((out, literal, i) => out + (i > 0 ? '\0' : '') + literal, '');
  if (template.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new Error('the path may not contain "." or ".." segments');
  }

  return {
    params,
    render(args) {
      let out = literals[0]!;
      params.forEach((name, i) => {
        out += encodeValue(name, args[name]) + literals[i + 1]!;
      });
      const climbing = out.split('/').find((segment) => segment === '.' || segment === '..');
      if (climbing !== undefined) {
        throw new PathValueError(`a path parameter may not make the path segment "${climbing}"`);
      }
      return out;
    },
  };
}

function encodeValue(name: string, value: unknown): string {
  if (value === undefined || value === null) {
    throw new PathValueError(`the path parameter ${name} is missing; it is required to build the URL`);
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new PathValueError(`the path parameter ${name} must be a string, number or boolean`);
  }
  const text = String(value);
  if (text === '') throw new PathValueError(`the path parameter ${name} may not be empty`);
  return encodeURIComponent(text);
}
