/**
 * Handlebars, loaded on use and in two parts: its parser (small) when a template is checked at
 * load, the whole package (compiler, runtime and the source-map library it pulls in) only when a
 * template that is more than `{{name}}` substitutions is compiled. A manifest without templates
 * loads neither.
 */
import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';

const load = createRequire(import.meta.url);

type Parse = (text: string) => hbs.AST.Program;
let parser: Parse | undefined;
let full: typeof HandlebarsModule | undefined;

/** `Handlebars.parse` (the same function: the package's compiler/base module). */
export function parseTemplate(text: string): hbs.AST.Program {
  parser ??= (load('handlebars/dist/cjs/handlebars/compiler/base.js') as { parse: Parse }).parse;
  return parser(text);
}

/** A new isolated Handlebars environment (no global helpers or partials leak in). */
export function handlebarsEnvironment(): typeof HandlebarsModule {
  full ??= load('handlebars') as typeof HandlebarsModule;
  return full.create();
}
