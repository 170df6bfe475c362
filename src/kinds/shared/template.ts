/**
 * Handlebars for prompts and text resources: one isolated environment (no global helpers or
 * partials leak in), no HTML escaping (the text is for a model), only the built-in helpers, and
 * every template compiled and checked once at compile time: syntax, unknown helpers, and variables
 * that are not declared.
 */
import Handlebars from 'handlebars';
import { problems } from '../../errors.js';
import { suggest } from '../../util/suggest.js';
import type { EntryPath, KindContext } from '../contract/kinds.js';

const env = Handlebars.create();

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
  let render: HandlebarsTemplateDelegate;
  let ast: hbs.AST.Program;
  try {
    ast = env.parse(text);
    render = env.compile(ast, { noEscape: true, knownHelpersOnly: true, strict: false });
    render({}); // Handlebars compiles lazily: force it now so unknown helpers and partials fail here.
  } catch (err) {
    ctx.error(at, problems.TEMPLATE_SYNTAX(firstLines((err as Error).message)));
    return undefined;
  }
  const unknown = [...new Set(templateVariables(ast))].filter((name) => !declared.includes(name));
  for (const name of unknown) {
    ctx.error(at, problems.TEMPLATE_UNKNOWN_VARIABLE(name, declared, suggest(name, declared)));
  }
  if (unknown.length > 0) return undefined;
  return (data) => render(data);
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
