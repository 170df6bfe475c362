/**
 * Handlebars, loaded on use and in two parts: its parser (small) when a template is checked at
 * load, the whole package (compiler, runtime and the source-map library it pulls in) only when a
 * template that is more than `{{name}}` substitutions is compiled. A manifest without templates
 * loads neither.
 */
import type HandlebarsModule from 'handlebars';
import { requireOnUse } from './require-on-use.js';

const load = requireOnUse(import.meta.url);

type Parse = (text: string) => hbs.AST.Program;
let parser: Parse | undefined;
let full: typeof HandlebarsModule | undefined;

/**
 * `Handlebars.parse` (the same function: the package's compiler/base module). Text made only of
 * plain characters and `{{name}}` / `{{a.b}}` substitutions, what most templates are, gets the very
 * tree Handlebars would build without loading its parser (a 290 KB lexer and grammar).
 */
export function parseTemplate(text: string): hbs.AST.Program {
  const simple = substitutionsOnly(text);
  if (simple) return simple;
  parser ??= (load('handlebars/dist/cjs/handlebars/compiler/base.js') as { parse: Parse }).parse;
  return parser(text);
}

/** A mustache of one path: identifier segments joined by dots, spaces allowed inside the braces. */
const SUBSTITUTION = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;
/** Segments Handlebars reads as something else than a plain path: keywords, literals, helpers. */
const NOT_A_PATH = new Set([
  ...['this', 'else', 'true', 'false', 'null', 'undefined'],
  ...['if', 'unless', 'each', 'with', 'lookup', 'log', 'helperMissing', 'blockHelperMissing'],
]);

/**
 * Handlebars' tree of `text` when it is plain text and substitutions only; undefined whenever
 * anything else could be meant (a backslash escape, `{{{`, `}}}`, `{{#…}}`, `{{~…}}`, a comment, a
 * helper, a literal, an unclosed `{{`), which then goes to the real parser, errors included.
 */
function substitutionsOnly(text: string): hbs.AST.Program | undefined {
  if (text.includes('\\')) return undefined;
  const body: unknown[] = [];
  const content = (value: string) => {
    if (value) body.push({ type: 'ContentStatement', original: value, value });
  };
  let end = 0;
  for (const match of text.matchAll(SUBSTITUTION)) {
    const start = match.index;
    const before = text.slice(end, start);
    if (before.includes('{{') || text[start - 1] === '{') return undefined;
    end = start + match[0].length;
    if (text[end] === '}') return undefined;
    const original = match[1]!;
    const parts = original.split('.');
    if (parts.some((part) => NOT_A_PATH.has(part))) return undefined;
    content(before);
    body.push({
      type: 'MustacheStatement',
      path: { type: 'PathExpression', data: false, depth: 0, parts, original },
      params: [],
      escaped: true,
      strip: { open: false, close: false },
    });
  }
  const rest = text.slice(end);
  if (rest.includes('{{')) return undefined;
  content(rest);
  return { type: 'Program', body, strip: {} } as unknown as hbs.AST.Program;
}

/** A new isolated Handlebars environment (no global helpers or partials leak in). */
export function handlebarsEnvironment(): typeof HandlebarsModule {
  full ??= load('handlebars') as typeof HandlebarsModule;
  return full.create();
}
