/**
 * Handlebars for prompts and text resources: one isolated environment (no global helpers or
 * partials leak in), no HTML escaping (the text is for a model), only the built-in helpers, and
 * every template checked once at compile time: syntax, unknown helpers, and variables that are not
 * declared. Substitution-only templates render through a small interpreter (substitute) that keeps
 * Handlebars' results exactly; the others are compiled by Handlebars on first render.
 */
import { problems } from '../../errors.js';
import { handlebarsEnvironment, parseTemplate } from '../../util/handlebars.js';
import { suggest } from '../../util/suggest.js';
import type { EntryPath, KindContext } from '../contract/kinds.js';

let env: ReturnType<typeof handlebarsEnvironment> | undefined;
const environment = () => {
  env ??= handlebarsEnvironment();
  return env;
};

/** Helpers Handlebars ships; with knownHelpersOnly, any other helper fails to compile. */
const BUILTIN_HELPERS = new Set(['if', 'unless', 'each', 'with', 'lookup', 'log']);
/** Blocks whose body runs in the same context, so their body's variables are checked too. */
const SAME_CONTEXT_BLOCKS = new Set(['if', 'unless']);

export type RenderTemplate = (data: Readonly<Record<string, unknown>>) => string;

/**
 * Parses and compiles `text`; reports TEMPLATE_SYNTAX or TEMPLATE_UNKNOWN_VARIABLE at `at` and
 * returns undefined on failure.
 */
export function compileTemplate(
  text: string,
  declared: readonly string[],
  at: EntryPath,
  ctx: KindContext,
): RenderTemplate | undefined {
  // Text with no mustache at all renders as itself: no Handlebars work at load or per call.
  if (!text.includes('{{')) return () => text;
  let ast: hbs.AST.Program;
  try {
    ast = parseTemplate(text);
  } catch (err) {
    ctx.error(at, problems.TEMPLATE_SYNTAX(firstLines((err as Error).message)));
    return undefined;
  }
  // Plain text and `{{name}}` substitutions, the common case, render without Handlebars: a compiled
  // template kept its generated function, its source and a runtime per tool (12 KB each).
  const parts = substitutionParts(ast);
  if (parts === undefined) {
    try {
      // Handlebars compiles lazily: force it now so unknown helpers and partials fail here. The
      // result is dropped and compiled again on first render, so an unused template costs its text.
      environment().compile(ast, OPTIONS)({});
    } catch (err) {
      ctx.error(at, problems.TEMPLATE_SYNTAX(firstLines((err as Error).message)));
      return undefined;
    }
  }
  const unknown = [...new Set(templateVariables(ast))].filter((name) => !declared.includes(name));
  for (const name of unknown) {
    ctx.error(at, problems.TEMPLATE_UNKNOWN_VARIABLE(name, declared, suggest(name, declared)));
  }
  if (unknown.length > 0) return undefined;
  if (parts !== undefined) return (data) => substitute(parts, data);
  let render: HandlebarsTemplateDelegate | undefined;
  return (data) => {
    render ??= environment().compile(text, OPTIONS);
    return render(data);
  };
}

const OPTIONS = { noEscape: true, knownHelpersOnly: true, strict: false } as const;

/** Helpers a mustache without arguments still calls under knownHelpersOnly (`{{if}}` throws). */
const KNOWN_HELPERS = new Set([...BUILTIN_HELPERS, 'helperMissing', 'blockHelperMissing']);

/** Literal text, or the path segments of a `{{a.b}}` substitution. */
type Part = string | readonly string[];

/**
 * The parts of a template made only of text, comments and argument-less `{{name}}` / `{{a.b}}`
 * mustaches (whitespace control already applied by the parse); undefined for anything else
 * (blocks, helpers, partials, `this`, `@data`, `../`, literals), which Handlebars renders.
 */
export function substitutionParts(program: hbs.AST.Program): Part[] | undefined {
  const parts: Part[] = [];
  for (const node of program.body) {
    if (node.type === 'CommentStatement') continue;
    if (node.type === 'ContentStatement') {
      // Handlebars emits no code for empty text (stripped by `~`), so it must not start a sum here.
      const value = (node as hbs.AST.ContentStatement).value;
      if (value !== '') parts.push(value);
      continue;
    }
    if (node.type !== 'MustacheStatement') return undefined;
    const m = node as hbs.AST.MustacheStatement;
    if (m.params.length > 0 || (m.hash?.pairs.length ?? 0) > 0) return undefined;
    if (m.path.type !== 'PathExpression') return undefined;
    const path = m.path as hbs.AST.PathExpression;
    if (path.data || path.depth > 0 || path.parts.length === 0 || /^(this\b|\.)/.test(path.original))
      return undefined;
    if (path.parts.length === 1 && KNOWN_HELPERS.has(path.parts[0]!)) return undefined;
    parts.push([...path.parts]);
  }
  return parts;
}

/**
 * What Handlebars' generated code does for these parts with noEscape: each value is looked up own
 * property by own property (an inherited one is denied, as its prototype-access rules deny it by
 * default), a function value is called with the context as `this`, null and undefined become "",
 * and the parts are summed left to right with `+` (so `{{a}}{{b}}` of 1 and 2 is "3", as there).
 */
export function substitute(parts: readonly Part[], data: unknown): string {
  let out: unknown = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const value = typeof part === 'string' ? part : valueAt(part, data);
    out = i === 0 ? value : (out as string) + (value as string);
  }
  return `${out}`;
}

function valueAt(path: readonly string[], context: unknown): unknown {
  let current = context;
  for (const name of path) {
    if (current === null || current === undefined) break;
    current = ownProperty(current, name);
  }
  if (typeof current === 'function') current = current.call(context);
  return current ?? '';
}

function ownProperty(parent: unknown, name: string): unknown {
  const result = (parent as Record<string, unknown>)[name];
  if (result === null || result === undefined) return result;
  // Object.hasOwn boxes a primitive parent, as hasOwnProperty.call does: a string has its `length`.
  if (!Object.hasOwn(parent as object, name)) return undefined;
  // A prototype's own `constructor` (Function.prototype.constructor) is denied there too.
  if (name === 'constructor' && typeof result === 'function' && parent === result.prototype) return undefined;
  return result;
}

function firstLines(message: string): string {
  return message.split('\n').slice(0, 4).join('\n');
}

/**
 * The top-level variables a template reads: `{{name}}`, `{{name.field}}`, helper arguments
 * (`{{#if name}}`, `{{lookup name key}}`) and the bodies of `if`/`unless`. Bodies of `each`/`with`
 * and sections change the context and are not checked; `this`, `@data` and `../` are skipped.
 */
export function templateVariables(program: hbs.AST.Program): string[] {
  const found: string[] = [];
  const expression = (node: hbs.AST.Expression | undefined): void => {
    if (!node) return;
    if (node.type === 'PathExpression') {
      const path = node as hbs.AST.PathExpression;
      if (path.data || path.depth > 0 || /^(this\b|\.)/.test(path.original)) return;
      const head = path.parts[0];
      if (head !== undefined) found.push(head);
    } else if (node.type === 'SubExpression') {
      const sub = node as hbs.AST.SubExpression;
      call(sub.params, sub.hash);
    }
  };
  const call = (params: hbs.AST.Expression[], hash: hbs.AST.Hash | undefined): void => {
    for (const p of params) expression(p);
    for (const pair of hash?.pairs ?? []) expression(pair.value);
  };
  const isHelperCall = (node: { params: hbs.AST.Expression[]; hash?: hbs.AST.Hash }) =>
    node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0;
  const headName = (path: hbs.AST.PathExpression | hbs.AST.Literal) =>
    path.type === 'PathExpression' ? (path as hbs.AST.PathExpression).original : '';
  const statements = (block: hbs.AST.Program | undefined): void => {
    for (const node of block?.body ?? []) {
      if (node.type === 'MustacheStatement') {
        const m = node as hbs.AST.MustacheStatement;
        if (isHelperCall(m)) call(m.params, m.hash);
        else if (!BUILTIN_HELPERS.has(headName(m.path))) expression(m.path as hbs.AST.Expression);
      } else if (node.type === 'BlockStatement') {
        const b = node as hbs.AST.BlockStatement;
        const helper = headName(b.path);
        if (isHelperCall(b)) call(b.params, b.hash);
        else if (!BUILTIN_HELPERS.has(helper)) expression(b.path); // a section: {{#items}}…{{/items}}
        if (SAME_CONTEXT_BLOCKS.has(helper)) statements(b.program);
        statements(b.inverse); // `else` runs in the outer context, also for each/with
      }
    }
  };
  statements(program);
  return found;
}
