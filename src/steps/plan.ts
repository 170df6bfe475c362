/**
 * Compiles an entry's interactive steps (`roots`, `ask`, `confirm`, `sample`) into a StepPlan, once,
 * when the manifest loads: templates are compiled and checked against the names they may use, forms
 * become elicitation schemas, names must not collide, and each step learns which earlier steps it
 * waits for (so a 2026 client can be asked independent questions in one round).
 *
 * Order of a call: roots, ask (each form in turn), confirm, sample `into` — then the action — then a
 * sample without `into`, whose reply replaces the action's result.
 */
import { problems } from '../errors.js';
import type { EntryPath, KindContext } from '../kinds/contract/kinds.js';
import {
  DEFAULT_SAMPLING_TIMEOUT_MS,
  DEFAULT_USER_TIMEOUT_MS,
  type FormConfig,
  type SampleConfig,
  type StepsConfig,
} from '../kinds/contract/step-fields.js';
import type { JsonSchema } from '../kinds/contract/types.js';
import { compileTemplate, templateVariables } from '../kinds/shared/template.js';
import { parseTemplate } from '../util/handlebars.js';
import { firstRootPath, readElicitResult, readRoots, readSamplingText } from './answers.js';
import { compileForm, defaultFormMessage } from './form.js';
import { type InputMethod, type InputRequest, InvalidInputResponse } from './interaction.js';

type Values = Readonly<Record<string, unknown>>;

/** What an answer settles: new values, the text of a reply, or the end of the call (the user said no). */
export interface Settled {
  readonly values?: Readonly<Record<string, unknown>>;
  readonly text?: string;
  readonly stop?: string;
}

export interface Step {
  /** Its name in a 2026 `inputRequests` map. */
  readonly key: string;
  readonly method: InputMethod;
  readonly timeoutMs: number;
  /** Keys of the steps it waits for: those producing values it reads (and a confirm, for sampling). */
  readonly after: readonly string[];
  /** 'proceed': when the client cannot answer, go on without it; otherwise the client must. */
  readonly fallback?: 'proceed';
  request(values: Values): InputRequest;
  /** Checks the answer to `asked` (what `request` returned); throws InvalidInputResponse when it is not one. */
  settle(answer: unknown, asked: InputRequest): Settled;
}

export interface StepPlan {
  /** Steps before the action, in order. */
  readonly before: readonly Step[];
  /** The sample whose reply becomes the result. */
  readonly after?: Step;
  /** The values the steps produce, as extra inputs the action's kind may use. */
  readonly inputs: Readonly<Record<string, JsonSchema>>;
}

const ROOTS_INPUTS: Readonly<Record<string, JsonSchema>> = {
  roots: { type: 'array', items: { type: 'object' }, required: false },
  root: { type: 'string', required: false },
};

/** Undefined (after reporting) when a step does not compile; an empty plan when there are none. */
export function compileSteps(
  config: StepsConfig,
  declared: readonly string[],
  ctx: KindContext,
): StepPlan | undefined {
  let ok = true;
  const fail = (at: EntryPath, message: string) => {
    ok = false;
    ctx.error(at, problems.MANIFEST_INVALID_VALUE(message));
  };
  const before: Step[] = [];
  const producers = new Map<string, string>(); // value name → key of the step producing it
  const inputs: Record<string, JsonSchema> = {};
  const visible = () => [...declared, ...producers.keys()];
  const produce = (at: EntryPath, key: string, schemas: Readonly<Record<string, JsonSchema>>) => {
    for (const [name, schema] of Object.entries(schemas)) {
      if (declared.includes(name) || producers.has(name))
        fail(at, `the value "${name}" is already an argument or an earlier answer; rename one of them`);
      producers.set(name, key);
      inputs[name] = schema;
    }
  };
  const template = (text: string, names: readonly string[], at: EntryPath) => {
    const render = compileTemplate(text, names, at, ctx);
    if (!render) ok = false;
    const waits = readVariables(text).flatMap((name) => producers.get(name) ?? []);
    return { render: render ?? (() => ''), after: [...new Set(waits)] };
  };

  if (config.roots) {
    before.push(rootsStep());
    produce(['roots'], 'roots', ROOTS_INPUTS);
  }
  const forms = config.ask === undefined ? [] : Array.isArray(config.ask) ? config.ask : [config.ask];
  const keys = new Set(before.map((s) => s.key));
  forms.forEach((form: FormConfig, i) => {
    const at: EntryPath = Array.isArray(config.ask) ? ['ask', i] : ['ask'];
    const key = form.key ?? (i === 0 ? 'ask' : `ask_${i + 1}`);
    if (keys.has(key))
      fail([...at, 'key'], `the key "${key}" is used by another step; give each form its own key`);
    keys.add(key);
    const compiled = compileForm(form.fields, [...at, 'fields'], ctx);
    const message = template(form.message ?? defaultFormMessage(form.fields), visible(), [...at, 'message']);
    if (!compiled) ok = false;
    else {
      before.push(formStep(key, message, compiled.schema, compiled.validate, form.timeoutMs));
      produce([...at, 'fields'], key, compiled.inputs);
    }
  });
  let confirmKey: string | undefined;
  if (config.confirm !== undefined) {
    const confirm = typeof config.confirm === 'string' ? { message: config.confirm } : config.confirm;
    const at: EntryPath = typeof config.confirm === 'string' ? ['confirm'] : ['confirm', 'message'];
    const message = template(confirm.message, visible(), at);
    confirmKey = keys.has('confirm') ? 'confirm_step' : 'confirm';
    keys.add(confirmKey);
    before.push(confirmStep(confirmKey, message, confirm.fallback, confirm.timeoutMs));
  }
  let after: Step | undefined;
  const sample = config.sample;
  if (sample?.into !== undefined) {
    const prompt = template(sample.prompt, visible(), ['sample', 'prompt']);
    const system =
      sample.systemPrompt === undefined
        ? undefined
        : template(sample.systemPrompt, visible(), ['sample', 'systemPrompt']);
    const waits = [...prompt.after, ...(system?.after ?? []), ...(confirmKey ? [confirmKey] : [])];
    if (keys.has(sample.into)) fail(['sample', 'into'], `the key "${sample.into}" is used by another step`);
    before.push(sampleStep(sample.into, sample, prompt.render, system?.render, [...new Set(waits)]));
    produce(['sample', 'into'], sample.into, { [sample.into]: { type: 'string', required: false } });
  } else if (sample !== undefined) {
    if (visible().includes('result'))
      fail(
        ['sample'],
        'a sample after the action reads {{result}}; an argument or answer is already named "result"',
      );
    const names = [...visible(), 'result'];
    const prompt = template(sample.prompt, names, ['sample', 'prompt']);
    const system =
      sample.systemPrompt === undefined
        ? undefined
        : template(sample.systemPrompt, names, ['sample', 'systemPrompt']);
    after = sampleStep('sample', sample, prompt.render, system?.render, []);
  }
  if (!ok) return undefined;
  return { before, ...(after && { after }), inputs };
}

function readVariables(text: string): string[] {
  try {
    return templateVariables(parseTemplate(text));
  } catch {
    return []; // compileTemplate has reported the syntax error
  }
}

function rootsStep(): Step {
  return {
    key: 'roots',
    method: 'roots/list',
    timeoutMs: DEFAULT_SAMPLING_TIMEOUT_MS,
    after: [],
    request: () => ({ method: 'roots/list', params: {} }),
    settle(answer) {
      const roots = readRoots('roots', answer);
      const root = firstRootPath(roots);
      return { values: root === undefined ? { roots } : { roots, root } };
    },
  };
}

type Render = (values: Values) => string;

function formStep(
  key: string,
  message: { render: Render; after: readonly string[] },
  schema: JsonSchema,
  validate: (content: unknown) => string | undefined,
  timeoutMs = DEFAULT_USER_TIMEOUT_MS,
): Step {
  return {
    key,
    method: 'elicitation/create',
    timeoutMs,
    after: message.after,
    request: (values) => ({
      method: 'elicitation/create',
      params: { message: message.render(values), requestedSchema: schema },
    }),
    settle(answer, asked) {
      const { action, content } = readElicitResult(key, answer);
      if (action !== 'accept') return { stop: cancelled(action, 'the form', asked) };
      asOneChoice(schema, content);
      const mismatch = validate(content);
      if (mismatch) throw invalidContent(key, mismatch);
      const fields = Object.keys(schema.properties as object);
      return { values: Object.fromEntries(fields.filter((f) => f in content).map((f) => [f, content[f]])) };
    },
  };
}

/**
 * A 2025-06-18 client is shown a multi-select as a single-select (protocol/downgrade.ts), so its
 * answer for that field is one string: the one item chosen.
 */
function asOneChoice(schema: JsonSchema, content: Record<string, unknown>): void {
  for (const [name, field] of Object.entries(schema.properties as Record<string, JsonSchema>))
    if (field.type === 'array' && typeof content[name] === 'string') content[name] = [content[name]];
}

function confirmStep(
  key: string,
  message: { render: Render; after: readonly string[] },
  fallback: 'refuse' | 'proceed' | undefined,
  timeoutMs = DEFAULT_USER_TIMEOUT_MS,
): Step {
  return {
    key,
    method: 'elicitation/create',
    timeoutMs,
    after: message.after,
    ...(fallback === 'proceed' && { fallback }),
    request: (values) => ({
      method: 'elicitation/create',
      params: { message: message.render(values), requestedSchema: { type: 'object', properties: {} } },
    }),
    settle(answer, asked) {
      const { action } = readElicitResult(key, answer);
      return action === 'accept' ? {} : { stop: cancelled(action, 'the confirmation', asked) };
    },
  };
}

function sampleStep(
  key: string,
  config: SampleConfig,
  prompt: Render,
  system: Render | undefined,
  after: readonly string[],
): Step {
  return {
    key,
    method: 'sampling/createMessage',
    timeoutMs: config.timeoutMs ?? DEFAULT_SAMPLING_TIMEOUT_MS,
    after,
    request(values) {
      const params: Record<string, unknown> = {
        messages: [{ role: 'user', content: { type: 'text', text: prompt(values) } }],
        maxTokens: config.maxTokens,
      };
      if (system) params.systemPrompt = system(values);
      return { method: 'sampling/createMessage', params };
    },
    settle(answer) {
      const text = readSamplingText(key, answer);
      return config.into === undefined ? { text } : { values: { [config.into]: text } };
    },
  };
}

/** Not an error: the user chose not to go on, and the model should hear exactly that. */
function cancelled(action: 'decline' | 'cancel', what: string, asked: InputRequest): string {
  const how = action === 'decline' ? 'declined' : 'dismissed';
  const message = JSON.stringify(asked.params.message);
  return `Cancelled by the user: they ${how} ${what} ${message}. Nothing was done.`;
}

function invalidContent(key: string, mismatch: string): InvalidInputResponse {
  return new InvalidInputResponse(`the answer to input request "${key}" does not fit its form: ${mismatch}`);
}
