/**
 * Where the steps meet an entry at compile time: which manifest fields declare steps, the step plan
 * of a tool or prompt, and the config its kind compiles against, with the values the steps produce
 * declared as extra, optional inputs (so `:reason` in SQL or `{{answer}}` in a template is accepted)
 * while the public inputSchema stays the manifest's own `input`.
 */
import { problems } from '../errors.js';
import type { KindContext } from '../kinds/contract/kinds.js';
import type { StepsConfig } from '../kinds/contract/step-fields.js';
import type { JsonSchema } from '../kinds/contract/types.js';
import { compileSteps, type StepPlan } from './plan.js';

const STEP_KEYS = ['roots', 'ask', 'confirm', 'sample'] as const;

/**
 * The entry's step plan: undefined when it declares no steps, null when they do not compile (the
 * problems are reported). `declared` are the entry's argument names.
 */
export function entrySteps(
  config: StepsConfig & { readonly outputSchema?: unknown },
  declared: readonly string[],
  ctx: KindContext,
): StepPlan | undefined | null {
  if (!STEP_KEYS.some((key) => config[key] !== undefined && config[key] !== false)) return undefined;
  const plan = compileSteps(config, declared, ctx);
  if (plan?.after && config.outputSchema !== undefined) {
    ctx.error(
      ['outputSchema'],
      problems.MANIFEST_INVALID_VALUE(
        "this tool's result is the model's reply to `sample` (text, no structured result), so it has no outputSchema",
        'remove outputSchema, or give sample an `into` name so it runs before the action',
      ),
    );
    return null;
  }
  return plan ?? null;
}

/** The config the kind compiles: `field` (input, or a prompt's arguments) extended by the step values. */
export function withStepInputs<C extends object>(
  config: C,
  field: 'input' | 'arguments',
  plan: StepPlan | undefined | null,
  shape: (schema: JsonSchema) => object = (schema) => schema,
): C {
  if (!plan || Object.keys(plan.inputs).length === 0) return config;
  const own = (config as Record<string, Record<string, object> | undefined>)[field];
  const extra = Object.fromEntries(
    Object.entries(plan.inputs).map(([name, schema]) => [name, shape(schema)]),
  );
  return { ...config, [field]: { ...own, ...extra } };
}
