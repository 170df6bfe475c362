/**
 * A tool's `output:` (http tools, and mcp tools over an upstream's answer): what to keep of a JSON
 * answer (`pick`, json-pick.ts) and the text shown instead of it (`template`, data-template.ts). Its
 * schema and its compile, written once for every family that shapes a JSON answer.
 */
import { problems } from '../../errors.js';
import type { JsonSchema } from '../../util/json-schema.js';
import type { KindContext } from '../contract/kinds.js';
import { compileDataTemplate, type RenderData } from './data-template.js';
import { compilePick, type Pick } from './json-pick.js';

export interface OutputConfig {
  readonly pick?: string;
  readonly template?: string;
}

/** The schema of `output:`, with the family's own description of what it shapes. */
export function outputSchema(description: string): JsonSchema {
  return {
    type: 'object',
    description,
    properties: {
      pick: {
        type: 'string',
        minLength: 1,
        description: 'What to keep, e.g. items[*].{id, title} or {title, user: user.login}.',
      },
      template: {
        type: 'string',
        description: 'Handlebars text shown instead of the JSON, rendered over the structured result.',
      },
    },
    additionalProperties: false,
  };
}

/** `output:` compiled; a bad pick or template is reported at its field (`ctx.error`), and left out. */
export function compileOutput(
  output: OutputConfig | undefined,
  ctx: KindContext,
): { pick?: Pick; template?: RenderData } {
  let pick: Pick | undefined;
  try {
    pick = output?.pick === undefined ? undefined : compilePick(output.pick);
  } catch (err) {
    ctx.error(['output', 'pick'], problems.OUTPUT_PICK_INVALID((err as Error).message));
  }
  const template =
    output?.template === undefined
      ? undefined
      : compileDataTemplate(output.template, ['output', 'template'], ctx);
  return { ...(pick && { pick }), ...(template && { template }) };
}
