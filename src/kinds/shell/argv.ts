/**
 * Argument vectors for `shell` tools. Each element is rendered alone, so one element is always one
 * argument: spaces, quotes, `;`, `|`, `$(…)` and newlines in a value are just characters, because no
 * shell ever reads them. What remains is option injection (a value like `--output=/etc/x` read as an
 * option), so a rendered element starting with `-` is refused unless the manifest wrote the dash
 * itself (`--author={{a}}`) or put a literal `--` (end of options) before it.
 *
 * An element that uses arguments, all of which were left out, is dropped rather than passed as "":
 * `[git, diff, "{{from}}", "{{to}}"]` works with or without `to`.
 */
import { parseTemplate } from '../../util/handlebars.js';
import type { EntryPath, KindContext } from '../contract/kinds.js';
import { compileTemplate, type RenderTemplate, templateVariables } from '../shared/template.js';

interface Element {
  readonly text: string;
  readonly render?: RenderTemplate;
  readonly vars: readonly string[];
  /** The manifest wrote a leading dash (an option it declares), or `--` came before this element. */
  readonly dashAllowed: boolean;
}

export interface ArgvTemplate {
  /** The arguments, or the reason they are refused (a sentence for the model). */
  render(args: Readonly<Record<string, unknown>>): { argv: string[] } | { refused: string };
}

/** Compiles the elements after the program; reports template problems at `[...at, index]`. */
export function compileArgv(
  elements: readonly string[],
  declared: readonly string[],
  at: EntryPath,
  ctx: KindContext,
  offset = 0,
): ArgvTemplate | undefined {
  let endOfOptions = false;
  let ok = true;
  const compiled: Element[] = elements.map((text, i) => {
    const dashAllowed = endOfOptions || text.startsWith('-');
    if (!text.includes('{{')) {
      if (text === '--') endOfOptions = true;
      return { text, vars: [], dashAllowed };
    }
    const render = compileTemplate(text, declared, [...at, i + offset], ctx);
    if (!render) ok = false;
    const vars = render ? [...new Set(templateVariables(parseTemplate(text)))] : [];
    return { text, ...(render && { render }), vars, dashAllowed };
  });
  if (!ok) return undefined;

  return {
    render(args) {
      const argv: string[] = [];
      for (const element of compiled) {
        if (!element.render) {
          argv.push(element.text);
          continue;
        }
        if (element.vars.length > 0 && element.vars.every((v) => args[v] === undefined)) continue;
        const value = element.render(args);
        if (value.includes('\0')) return { refused: 'an argument contains a NUL character' };
        if (value.startsWith('-') && !element.dashAllowed) {
          return {
            refused: `the argument ${JSON.stringify(value)} starts with "-" and would be read as an option; pass a value that does not start with "-"`,
          };
        }
        argv.push(value);
      }
      return { argv };
    },
  };
}
