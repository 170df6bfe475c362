/**
 * A small glob matcher for relative paths with `/` separators: `**` (any number of folders), `*`
 * (any run of characters within one segment), `?` (one character) and `{a,b}` (alternatives,
 * nestable). Wildcards never match a segment's leading dot: dotfiles match only when the pattern
 * spells the dot (`.env`, `.github/*.yml`), as in bash and most glob libraries.
 */

export interface Glob {
  readonly pattern: string;
  matches(path: string): boolean;
  /** The pattern spells a leading dot somewhere, so dot-folders must be walked. */
  readonly namesDotfiles: boolean;
}

/** Brace expansion may not produce more alternatives than this (a pattern is not a program). */
const MAX_ALTERNATIVES = 256;

/** Compiles a pattern; throws an Error with a readable reason when it is malformed. */
export function compileGlob(pattern: string): Glob {
  const alternatives = expandBraces(pattern);
  const sources = alternatives.map(toRegexSource);
  const regex = new RegExp(`^(?:${sources.join('|')})$`);
  return {
    pattern,
    matches: (path) => regex.test(path),
    namesDotfiles: alternatives.some((alt) => alt.split('/').some((segment) => segment.startsWith('.'))),
  };
}

function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{');
  if (open === -1) {
    if (pattern.includes('}')) throw new Error(`unbalanced "}" in ${JSON.stringify(pattern)}`);
    return [pattern];
  }
  let depth = 0;
  let close = -1;
  const commas: number[] = [];
  for (let i = open; i < pattern.length && close === -1; i++) {
    const c = pattern[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) close = i;
    else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close === -1) throw new Error(`unbalanced "{" in ${JSON.stringify(pattern)}`);
  const head = pattern.slice(0, open);
  if (head.includes('}')) throw new Error(`unbalanced "}" in ${JSON.stringify(pattern)}`);
  const bounds = [open, ...commas, close];
  const options = bounds.slice(1).map((end, k) => pattern.slice(bounds[k]! + 1, end));
  const tails = expandBraces(pattern.slice(close + 1));
  const out: string[] = [];
  for (const option of options) {
    for (const expanded of expandBraces(option)) {
      for (const tail of tails) {
        out.push(head + expanded + tail);
        if (out.length > MAX_ALTERNATIVES)
          throw new Error(`more than ${MAX_ALTERNATIVES} {a,b} alternatives`);
      }
    }
  }
  return out;
}

const NO_DOT_SEGMENT = '(?!\\.)[^/]+';

function toRegexSource(pattern: string): string {
  const segments = pattern.split('/').filter((segment) => segment !== '');
  if (segments.length === 0) throw new Error('the pattern is empty');
  let source = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') {
      // Not last: zero or more folders, each with its slash. Last: one or more segments.
      source += last ? `${NO_DOT_SEGMENT}(?:/${NO_DOT_SEGMENT})*` : `(?:${NO_DOT_SEGMENT}/)*`;
    } else {
      source += segmentSource(segment) + (last ? '' : '/');
    }
  });
  return source;
}

function segmentSource(segment: string): string {
  if (segment === '*') return NO_DOT_SEGMENT;
  let source = segment.startsWith('.') ? '' : '(?!\\.)';
  let previous = '';
  for (const c of segment) {
    if (c === '*' && previous === '*') continue; // `**` inside a segment is `*`; avoids backtracking blowups
    previous = c;
    if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return source;
}
