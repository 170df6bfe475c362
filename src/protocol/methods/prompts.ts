/**
 * `prompts/list` and `prompts/get`. The prompt itself checks its required arguments; a prompt with
 * `ask` forms asks the client through `interactive` (2026: `input_required`).
 */
import { withLimits } from '../../governance/limits/gate.js';
import type { MethodSpec } from '../context.js';
import { interactive } from '../interaction.js';
import { invalidParams } from '../jsonrpc.js';
import { listPage } from '../pagination.js';
import { optionalStringRecord, requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';

async function getPrompt(scope: RequestScope): Promise<object> {
  const name = requireString(scope.params, 'name', 'prompts/get');
  const prompt = scope.catalog.prompts.get(name);
  if (prompt === undefined) throw invalidParams(`Unknown prompt: ${name}`);
  const args = optionalStringRecord(scope.params.arguments, 'prompts/get "arguments"');
  // The prompt's `limits:` per caller (governance/limits/): a refusal is -32041.
  const limits = scope.catalog.entryLimits?.get(prompt);
  return interactive(scope, name, async (interaction) => {
    const get = () =>
      prompt.get(args, scope.signal, {
        interaction,
        ...(scope.identity !== undefined && { identity: scope.identity }),
      });
    // A round carrying its verified requestState continues a get the rates already counted.
    const continued = interaction.carried !== undefined;
    const { description, messages } = await withLimits(limits, scope.client, get, { continued });
    return description === undefined ? { messages } : { description, messages };
  });
}

export const promptMethods: Record<string, MethodSpec> = {
  'prompts/list': {
    era: 'both',
    cacheable: true,
    handle: (scope) => listPage(scope.catalog, 'prompts', scope.params, scope.access),
  },
  'prompts/get': { era: 'both', routingName: 'name', handle: getPrompt },
};
