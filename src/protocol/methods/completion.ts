/** `completion/complete` for prompt arguments and resource-template variables. */
import type { MethodSpec } from '../context.js';
import { invalidParams, isObject } from '../jsonrpc.js';
import { optionalStringRecord, requireObject, requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';

/** The schema's maxItems for `completion.values`. */
const MAX_VALUES = 100;

async function complete(scope: RequestScope): Promise<object> {
  const method = 'completion/complete';
  const ref = requireObject(scope.params, 'ref', method);
  const argument = requireObject(scope.params, 'argument', method);
  const name = requireString(argument, 'name', `${method} argument`);
  const value = requireString(argument, 'value', `${method} argument`);
  const context = scope.params.context;
  if (context !== undefined && context !== null && !isObject(context)) {
    throw invalidParams(`${method} "context" must be an object`);
  }
  const contextArgs = optionalStringRecord(context?.arguments, `${method} "context.arguments"`);
  const { catalog } = scope;
  let values: readonly string[];
  if (ref.type === 'ref/prompt') {
    const promptName = requireString(ref, 'name', `${method} ref`);
    const prompt = catalog.prompts.get(promptName);
    if (prompt === undefined) throw invalidParams(`Unknown prompt: ${promptName}`);
    values = await prompt.complete(name, value, contextArgs, scope.identity);
  } else if (ref.type === 'ref/resource') {
    const uri = requireString(ref, 'uri', `${method} ref`);
    const template = catalog.templates.find((t) => t.descriptor.uriTemplate === uri);
    if (template === undefined) throw invalidParams(`Unknown resource template: ${uri}`);
    values = await template.complete(name, value, contextArgs, scope.identity);
  } else {
    throw invalidParams(`${method} "ref.type" must be "ref/prompt" or "ref/resource"`);
  }
  const total = values.length;
  return {
    completion: {
      values: total > MAX_VALUES ? values.slice(0, MAX_VALUES) : values,
      total,
      hasMore: total > MAX_VALUES,
    },
  };
}

export const completionMethods: Record<string, MethodSpec> = {
  'completion/complete': { era: 'both', handle: complete },
};
