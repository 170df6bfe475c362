/**
 * A prompt with `ask` forms: the user's answers become values its messages use, like arguments.
 *
 * The kind was compiled with the form fields declared as extra, optional arguments (so its
 * templates accept them); this wrapper hides them again: they are not in the descriptor, a client
 * may not pass them, and completion offers nothing for them. A declined form ends `prompts/get`
 * with an error that says so (a prompt has no "cancelled" result to return).
 */

import { InvalidRequestParams } from '../kinds/contract/types.js';
import type { StepPlan } from '../steps/plan.js';
import { NO_INTERACTION, runBefore } from '../steps/run.js';
import type { CatalogPrompt } from './types.js';

export function guardPrompt(prompt: CatalogPrompt, steps: StepPlan): CatalogPrompt {
  const hidden = new Set(Object.keys(steps.inputs));
  const { descriptor } = prompt;
  const visible = descriptor.arguments?.filter((argument) => !hidden.has(argument.name));
  const { arguments: _all, ...rest } = descriptor;
  return {
    descriptor: visible && visible.length > 0 ? { ...rest, arguments: visible } : rest,
    ...(prompt.argumentHints !== undefined && { argumentHints: prompt.argumentHints }),
    async get(args, signal, caller) {
      // The arguments are checked before the user is asked anything, not after.
      const names = new Set((visible ?? []).map((argument) => argument.name));
      for (const name of Object.keys(args)) {
        if (hidden.has(name)) {
          throw new InvalidRequestParams(
            `unknown argument ${JSON.stringify(name)}: the prompt asks the user for it; do not pass it`,
          );
        }
        if (!names.has(name)) {
          const takes =
            names.size > 0 ? `the prompt takes: ${[...names].join(', ')}` : 'the prompt takes no arguments';
          throw new InvalidRequestParams(`unknown argument ${JSON.stringify(name)}; ${takes}`);
        }
      }
      const missing = (visible ?? []).filter((a) => a.required && !args[a.name]).map((a) => a.name);
      if (missing.length > 0) {
        throw new InvalidRequestParams(
          `missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`,
        );
      }
      const before = await runBefore(
        steps,
        args,
        caller?.interaction ?? NO_INTERACTION,
        `Prompt ${descriptor.name}`,
      );
      if ('stop' in before) throw new InvalidRequestParams(before.stop);
      const answers: Record<string, string> = {};
      for (const name of hidden) {
        const value = before.values[name];
        if (value !== undefined && value !== null) answers[name] = asText(value);
      }
      return prompt.get({ ...args, ...answers }, signal);
    },
    complete: (argument, prefix, context) =>
      hidden.has(argument) ? Promise.resolve([]) : prompt.complete(argument, prefix, context),
  };
}

/** Prompt arguments are strings: a multi-select reads "a, b", a boolean "true". */
function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
