/**
 * Value trees: a `query`, `headers` or `body` written in the manifest, with arguments substituted as
 * data. A string that is exactly `{{name}}` becomes the argument's typed value (a number stays a
 * number, an array stays an array); any other string with `{{…}}` is a Handlebars template rendered
 * as text; every other value is a literal. The tree is compiled once; a call only fills it in.
 *
 * Absent arguments remove their entry instead of rendering as "": an object key or array item whose
 * value is `{{name}}`, or a template all of whose arguments were left out, is dropped.
 */
import { problems } from '../../errors.js';
import { parseTemplate } from '../../util/handlebars.js';
import { suggest } from '../../util/suggest.js';
import type { EntryPath, KindContext } from '../contract/kinds.js';
import { compileTemplate, type RenderTemplate, templateVariables } from './template.js';

export type ValueNode =
  | { readonly type: 'literal'; readonly value: unknown }
  | { readonly type: 'arg'; readonly name: string }
  | { readonly type: 'text'; readonly render: RenderTemplate; readonly vars: readonly string[] }
  | { readonly type: 'array'; readonly items: readonly ValueNode[] }
  | { readonly type: 'object'; readonly entries: readonly (readonly [string, ValueNode])[] };

/** What an entry evaluates to when its arguments were left out: the caller drops it. */
export const ABSENT: unique symbol = Symbol('absent');
export type Evaluated = unknown | typeof ABSENT;

const EXACT_ARG = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** Compiles a tree; reports unknown variables and template syntax at their path, then returns undefined. */
export function compileTree(
  value: unknown,
  declared: readonly string[],
  at: EntryPath,
  ctx: KindContext,
): ValueNode | undefined {
  if (typeof value === 'string') return compileString(value, declared, at, ctx);
  if (Array.isArray(value)) {
    const items = value.map((item, i) => compileTree(item, declared, [...at, i], ctx));
    return items.every((n) => n !== undefined) ? { type: 'array', items } : undefined;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(
      ([key, item]) => [key, compileTree(item, declared, [...at, key], ctx)] as const,
    );
    return entries.every(([, n]) => n !== undefined)
      ? { type: 'object', entries: entries as [string, ValueNode][] }
      : undefined;
  }
  return { type: 'literal', value };
}

export function compileString(
  text: string,
  declared: readonly string[],
  at: EntryPath,
  ctx: KindContext,
): ValueNode | undefined {
  if (!text.includes('{{')) return { type: 'literal', value: text };
  const exact = EXACT_ARG.exec(text);
  if (exact) {
    const name = exact[1]!;
    if (declared.includes(name)) return { type: 'arg', name };
    ctx.error(at, problems.TEMPLATE_UNKNOWN_VARIABLE(name, declared, suggest(name, declared)));
    return undefined;
  }
  const render = compileTemplate(text, declared, at, ctx);
  if (!render) return undefined;
  const vars = [...new Set(templateVariables(parseTemplate(text)))];
  return { type: 'text', render, vars };
}

/** Fills the tree in with `args`; ABSENT when the node itself is to be left out. */
export function evaluateTree(node: ValueNode, args: Readonly<Record<string, unknown>>): Evaluated {
  switch (node.type) {
    case 'literal':
      return node.value;
    case 'arg':
      return args[node.name] === undefined ? ABSENT : args[node.name];
    case 'text':
      return node.vars.length > 0 && node.vars.every((v) => args[v] === undefined)
        ? ABSENT
        : node.render(args);
    case 'array':
      return node.items.map((item) => evaluateTree(item, args)).filter((v) => v !== ABSENT);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of node.entries) {
        const v = evaluateTree(item, args);
        if (v === ABSENT) continue;
        // defineProperty: a key named "__proto__" stays a plain key of the data.
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
}

/** The argument names a tree reads anywhere. */
export function treeVariables(node: ValueNode | undefined): string[] {
  if (!node) return [];
  switch (node.type) {
    case 'literal':
      return [];
    case 'arg':
      return [node.name];
    case 'text':
      return [...node.vars];
    case 'array':
      return node.items.flatMap(treeVariables);
    case 'object':
      return node.entries.flatMap(([, item]) => treeVariables(item));
  }
}
