/**
 * The step engine: runs a StepPlan around an action through the call's Interaction, the same code
 * for both eras.
 *
 * Before anything is asked, every step still to come is checked against what the client declared:
 * a step it cannot answer either falls back (a confirm with `fallback: proceed`) or ends the call
 * (MissingClientCapability), so a client is never asked half-way and never left hanging.
 *
 * Then rounds: each round holds the steps whose inputs are known. A 2025 client is asked one
 * question at a time (a declined confirm stops before the model is sampled); a 2026 client gets
 * the whole round as `input_required` (InputRequired is thrown, carrying what is settled so far)
 * unless its retry already carries the answers. After the action, a sample without `into` turns
 * the action's text into the model's reply; the action's text rides in the state, so a later round
 * never runs the action twice.
 */

import type { ToolResult } from '../kinds/contract/types.js';
import {
  type CarriedState,
  type InputMethod,
  type InputRequest,
  InputRequired,
  type Interaction,
  InteractionFailed,
  MissingClientCapability,
} from './interaction.js';
import type { Step, StepPlan } from './plan.js';

type Values = Record<string, unknown>;

interface Progress {
  readonly values: Values;
  readonly done: Set<string>;
}

const CAPABILITIES: Readonly<Record<InputMethod, readonly [string, string]>> = {
  'elicitation/create': ['elicitation', 'ask the user (elicitation, form mode)'],
  'sampling/createMessage': ['sampling', "ask the client's model (sampling)"],
  'roots/list': ['roots', "read the client's roots (roots)"],
};

/** For callers that offer no interaction at all: nothing can be asked. */
export const NO_INTERACTION: Interaction = {
  stateless: false,
  carried: undefined,
  supports: () => false,
  gather: () => Promise.reject(new InteractionFailed('this client cannot be asked anything')),
};

export type Before = { readonly values: Values; readonly progress: Progress } | { readonly stop: string };

/**
 * Settles the steps before the action. `who` names the entry in messages ("tool delete_note").
 * Resolves with the values for the action (arguments + answers) or the sentence that ends the call.
 */
export async function runBefore(
  plan: StepPlan,
  args: Readonly<Values>,
  interaction: Interaction,
  who: string,
): Promise<Before> {
  const carried = interaction.carried;
  const progress: Progress = { values: { ...carried?.values }, done: new Set(carried?.done) };
  const waiting = plan.before.filter((step) => !progress.done.has(step.key));
  const needs = plan.after ? [...waiting, plan.after] : waiting;
  for (const step of checkSupport(needs, interaction, who)) progress.done.add(step.key);
  const known = new Set(plan.before.map((step) => step.key));
  for (;;) {
    const open = plan.before.filter((step) => !progress.done.has(step.key));
    if (open.length === 0) break;
    // `after` names earlier steps only, so the first open step is always ready.
    const ready = open.filter((s) => s.after.every((key) => progress.done.has(key) || !known.has(key)));
    const view = { ...progress.values, ...args };
    const round = ready.map((step) => [step, step.request(view)] as const);
    const stop = interaction.stateless
      ? await statelessRound(round, interaction, progress)
      : await oneByOne(round, interaction, progress);
    if (stop !== undefined) return { stop };
  }
  return { values: { ...progress.values, ...args }, progress };
}

/** The whole tool call: steps, action, and the sample after it. */
export async function runTool(
  plan: StepPlan,
  args: Readonly<Values>,
  interaction: Interaction,
  who: string,
  action: (values: Readonly<Values>) => Promise<ToolResult>,
): Promise<ToolResult> {
  const before = await runBefore(plan, args, interaction, who);
  if ('stop' in before) return { content: [{ type: 'text', text: before.stop }] };
  const after = plan.after;
  let text = interaction.carried?.result;
  const ranNow = text === undefined;
  if (text === undefined) {
    const result = await actInRounds(action, before);
    if (!after || result.isError) return result;
    text = resultText(result);
  }
  // A state from before a reload that removed the sample: the action's text is the result.
  if (!after) return { content: [{ type: 'text', text }] };
  const asked = after.request({ ...before.values, result: text });
  // 2026: the action just ran, so no answer to this prompt can exist yet; ask in a new round.
  const answers =
    ranNow && interaction.stateless && !interaction.waits
      ? {}
      : await interaction.gather({ [after.key]: asked }, after.timeoutMs);
  if (!Object.hasOwn(answers, after.key)) {
    throw new InputRequired({ [after.key]: asked }, { ...snapshot(before.progress), result: text });
  }
  return { content: [{ type: 'text', text: after.settle(answers[after.key], asked).text ?? '' }] };
}

/**
 * The action, whose own 2026 round (a kind that relays another server's question, kinds/mcp/rounds.ts)
 * carries the steps settled in this round too: its retry must not ask them again.
 */
async function actInRounds(
  action: (values: Readonly<Values>) => Promise<ToolResult>,
  before: { readonly values: Values; readonly progress: Progress },
): Promise<ToolResult> {
  try {
    return await action(before.values);
  } catch (err) {
    if (!(err instanceof InputRequired)) throw err;
    const settled = snapshot(before.progress);
    throw new InputRequired(err.requests, {
      ...err.state,
      values: { ...settled.values, ...err.state.values },
      done: [...new Set([...settled.done, ...err.state.done])],
    });
  }
}

/** The steps the client can answer; unanswerable ones fall back or end the call. */
function checkSupport(steps: readonly Step[], interaction: Interaction, who: string): Step[] {
  const skipped: Step[] = [];
  const missing = new Map<string, string>();
  for (const step of steps) {
    if (interaction.supports(step.method)) continue;
    if (step.fallback === 'proceed') skipped.push(step);
    else missing.set(...CAPABILITIES[step.method]);
  }
  if (missing.size > 0) {
    const required = Object.fromEntries([...missing.keys()].map((name) => [name, {}]));
    throw new MissingClientCapability(
      required,
      `${who} needs to ${[...missing.values()].join(' and ')}, but this client did not declare ` +
        `${[...missing.keys()].join(' or ')} support; use it from a client that does.`,
    );
  }
  return skipped;
}

async function statelessRound(
  round: readonly (readonly [Step, InputRequest])[],
  interaction: Interaction,
  progress: Progress,
): Promise<string | undefined> {
  const answers = await interaction.gather(Object.fromEntries(round.map(([s, r]) => [s.key, r])), 0);
  const missing: Record<string, InputRequest> = {};
  for (const [step, asked] of round) {
    if (!Object.hasOwn(answers, step.key)) missing[step.key] = asked;
    else {
      const stop = settle(step, answers[step.key], asked, progress);
      if (stop !== undefined) return stop;
    }
  }
  if (Object.keys(missing).length > 0) throw new InputRequired(missing, snapshot(progress));
  return undefined;
}

async function oneByOne(
  round: readonly (readonly [Step, InputRequest])[],
  interaction: Interaction,
  progress: Progress,
): Promise<string | undefined> {
  for (const [step, asked] of round) {
    const answers = await interaction.gather({ [step.key]: asked }, step.timeoutMs);
    const stop = settle(step, answers[step.key], asked, progress);
    if (stop !== undefined) return stop;
  }
  return undefined;
}

function settle(step: Step, answer: unknown, asked: InputRequest, progress: Progress): string | undefined {
  const settled = step.settle(answer, asked);
  if (settled.stop !== undefined) return settled.stop;
  Object.assign(progress.values, settled.values);
  progress.done.add(step.key);
  return undefined;
}

function snapshot(progress: Progress): CarriedState {
  return { values: { ...progress.values }, done: [...progress.done] };
}

/** What `{{result}}` shows the model: the text blocks, or the structured result as JSON. */
export function resultText(result: ToolResult): string {
  const texts = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  if (texts.length > 0) return texts.join('\n');
  return result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
}
