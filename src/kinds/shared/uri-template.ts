/**
 * RFC 6570 URI templates, the two forms resource templates need: level 1 `{name}` (one path
 * segment) and reserved `{+name}` (anything, `/` included). Matching a URI yields the variables,
 * percent-decoded. Path templates (`docs/{name}.md`) reuse the same `{name}` syntax.
 */

export interface UriTemplate {
  readonly template: string;
  /** Variable names in order of appearance. */
  readonly variables: readonly string[];
  /** Variables written `{+name}`, whose values may contain `/`. */
  readonly reserved: ReadonlySet<string>;
  /** The decoded variables when `uri` matches, else undefined (also for malformed %-escapes). */
  match(uri: string): Record<string, string> | undefined;
}

const EXPRESSION = /\{([^{}]*)\}/g;
const NAME = /^[A-Za-z0-9_]+$/;

/** Whether the text is meant as a template: braces are not allowed in a plain URI anyway. */
export function hasTemplateVariables(text: string): boolean {
  return /[{}]/.test(text);
}

/** Parses a URI template; throws an Error whose message explains what is wrong. */
export function parseUriTemplate(template: string): UriTemplate {
  const variables: string[] = [];
  const reserved = new Set<string>();
  let source = '';
  let last = 0;
  for (const m of template.matchAll(EXPRESSION)) {
    source += literal(template.slice(last, m.index));
    last = m.index + m[0].length;
    const expression = m[1]!;
    const isReserved = expression.startsWith('+');
    const name = isReserved ? expression.slice(1) : expression;
    if (!NAME.test(name)) {
      throw new Error(
        `${JSON.stringify(m[0])} is not supported; write {name} for one path segment or {+name} for a value that may contain "/"`,
      );
    }
    if (variables.includes(name)) throw new Error(`the variable {${name}} appears twice`);
    variables.push(name);
    if (isReserved) reserved.add(name);
    source += isReserved ? '(.+)' : '([^/]+)';
  }
  source += literal(template.slice(last));
  if (variables.length === 0) throw new Error(`${JSON.stringify(template)} has no {variable}`);
  const regex = new RegExp(`^${source}$`);
  return {
    template,
    variables,
    reserved,
    match(uri) {
      const m = regex.exec(uri);
      if (!m) return undefined;
      const vars: Record<string, string> = {};
      try {
        variables.forEach((name, i) => {
          vars[name] = decodeURIComponent(m[i + 1]!);
        });
      } catch {
        return undefined;
      }
      return vars;
    },
  };
}

function literal(text: string): string {
  if (/[{}]/.test(text)) throw new Error(`unbalanced brace in ${JSON.stringify(text)}`);
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** A path with `{name}` (or `{+name}`) placeholders, split once so expansion is a concatenation. */
export interface PathTemplate {
  readonly variables: readonly string[];
  expand(vars: Readonly<Record<string, string>>): string;
}

export function parsePathTemplate(path: string): PathTemplate {
  const parts: { text: string; variable?: string }[] = [];
  const variables: string[] = [];
  let last = 0;
  for (const m of path.matchAll(/\{\+?([A-Za-z0-9_]+)\}/g)) {
    parts.push({ text: path.slice(last, m.index) }, { text: '', variable: m[1]! });
    if (!variables.includes(m[1]!)) variables.push(m[1]!);
    last = m.index + m[0].length;
  }
  parts.push({ text: path.slice(last) });
  return {
    variables,
    expand: (vars) =>
      parts.map((p) => (p.variable === undefined ? p.text : (vars[p.variable] ?? ''))).join(''),
  };
}

/**
 * Whether a decoded variable value may be put into a file path: no NUL, no `..` segment, and no
 * separator at all for a one-segment `{name}` variable.
 */
export function isSafePathValue(value: string, allowSlash: boolean): boolean {
  if (value.length === 0 || value.includes('\0')) return false;
  const segments = value.split(/[/\\]/);
  if (!allowSlash && segments.length > 1) return false;
  return !segments.includes('..');
}

/** Whether a URI starts with a scheme (`file:`, `docs:`), as resource URIs must. */
export function hasScheme(uri: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri);
}
