/**
 * Handlebars templates over data whose shape is only known at run time (an API's answer), so their
 * variables cannot be checked against declared names. Same environment rules as template.ts: an
 * isolated instance, no HTML escaping, only the built-in helpers, compiled once.
 */
import { problems } from '../../errors.js';
import { handlebarsEnvironment } from '../../util/handlebars.js';
import type { EntryPath, KindContext } from '../contract/kinds.js';

let env: ReturnType<typeof handlebarsEnvironment> | undefined;

export type RenderData = (data: unknown) => string;

/** Compiles `text`; reports TEMPLATE_SYNTAX at `at` and returns undefined when it does not compile. */
export function compileDataTemplate(text: string, at: EntryPath, ctx: KindContext): RenderData | undefined {
  try {
    env ??= handlebarsEnvironment();
    const render = env.compile(text, { noEscape: true, knownHelpersOnly: true, strict: false });
    render({}); // Handlebars compiles lazily: force it so unknown helpers fail here, not on a call.
    return (data) => render(data);
  } catch (err) {
    ctx.error(at, problems.TEMPLATE_SYNTAX((err as Error).message.split('\n').slice(0, 4).join('\n')));
    return undefined;
  }
}
