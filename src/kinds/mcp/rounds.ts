/**
 * A `kind: mcp` tool call from a 2026-07-28 client, in rounds: the upstream's questions end a round
 * with `input_required` (InputRequired, turned into the result by the protocol core), and the
 * retry that carries the answer continues the upstream call held in this process (held.ts). In a
 * 2026 task (`waits`) and in the 2025 era the questions go through CallContext.ask instead.
 */
import { abortSignalOf } from '../../util/call-signal.js';
import { JsonRpcCode } from '../../util/jsonrpc.js';
import { type CarriedState, InputRequired, type Interaction } from '../contract/interaction.js';
import type { CallContext, ClientAskMethod } from '../contract/types.js';
import { UpstreamError } from './client.js';
import { HELD_KEY, HeldCall, type HeldCalls, type Listener, type Question } from './held.js';

/** What the source gives a round. */
export interface Rounds {
  readonly held: HeldCalls;
  /** The source's name, for sentences. */
  readonly source: string;
  readonly timeoutMs: number;
  /** Starts the upstream's `tools/call`; `ask` answers its elicitation, sampling and roots requests. */
  start(
    ask: (method: ClientAskMethod, params: Readonly<Record<string, unknown>>) => Promise<unknown>,
    listener: () => Listener | undefined,
    signal: AbortSignal,
  ): Promise<unknown>;
}

/** Which capability each question needs, as the client declares it. */
const CAPABILITY: Readonly<Record<ClientAskMethod, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The upstream's result, or a sentence saying why the call cannot go on (an error result). */
export async function callInRounds(
  rounds: Rounds,
  call: CallContext,
  interaction: Interaction,
): Promise<{ readonly result: unknown } | { readonly refused: string }> {
  const carried = interaction.carried;
  const heldId = carried?.values[HELD_KEY];
  let held: HeldCall;
  if (heldId === undefined) {
    held = new HeldCall(call.principal ?? '', call.client ?? call.principal ?? '');
    const current = held;
    current.follow(
      rounds.start(
        (method, params) => current.ask(method, params),
        () => current.listener,
        current.signal,
      ),
    );
  } else {
    const taken = rounds.held.take(String(heldId), call.principal ?? '');
    if ('refused' in taken) return { refused: notTaken(rounds, taken.refused) };
    held = taken;
    const asked = held.asked!;
    const key = questionKey(held.rounds);
    const answers = await interaction.gather({ [key]: { method: asked.method, params: asked.params } }, 0);
    if (!Object.hasOwn(answers, key)) return ask(rounds, held, asked, carried, true);
    held.asked = undefined;
    asked.answer(answers[key]);
  }
  held.listener = { progress: call.progress, log: call.log };
  const signal = abortSignalOf(call.signal);
  for (;;) {
    let turn: Awaited<ReturnType<HeldCall['next']>>;
    try {
      turn = await held.next(signal);
    } catch (err) {
      held.cancel('The caller cancelled the request.');
      throw err;
    }
    if (turn.kind === 'result') return { result: turn.result };
    if (turn.kind === 'failed') throw turn.error;
    const { question } = turn;
    // Declared capabilities still gate, per round: the upstream hears which one is missing.
    if (!interaction.supports(question.method)) {
      question.refuse(
        new UpstreamError(
          JsonRpcCode.MethodNotFound,
          `the client did not declare the capability ${question.method} needs (${CAPABILITY[question.method]})`,
        ),
      );
      continue;
    }
    // A 2026 task waits for its answers (tasks/update): the question is asked there, in place.
    if (interaction.waits === true) {
      await answerInPlace(interaction, question, rounds.timeoutMs);
      continue;
    }
    return ask(rounds, held, question, carried, false);
  }
}

/** Holds the call and ends this round with the question (InputRequired). */
function ask(
  rounds: Rounds,
  held: HeldCall,
  question: Question,
  carried: CarriedState | undefined,
  again: boolean,
): never | { readonly refused: string } {
  if (!again) held.rounds++;
  const refusal = rounds.held.hold(held, question);
  if (refusal !== undefined) {
    question.refuse(new UpstreamError(JsonRpcCode.InternalError, `mcp-run cannot hold the call: ${refusal}`));
    held.cancel(`mcp-run cannot hold the call: ${refusal}`);
    return {
      refused: `The upstream ${rounds.source} asked for input (${question.method}) during the call, and mcp-run could not hold the call while you answer: ${refusal}. The call was cancelled upstream; retry it shortly.`,
    };
  }
  const state: CarriedState = {
    values: { ...carried?.values, [HELD_KEY]: held.id },
    done: carried?.done ?? [],
  };
  throw new InputRequired(
    { [questionKey(held.rounds)]: { method: question.method, params: question.params } },
    state,
  );
}

async function answerInPlace(interaction: Interaction, question: Question, timeoutMs: number): Promise<void> {
  try {
    const answers = await interaction.gather(
      { ask: { method: question.method, params: question.params } },
      timeoutMs,
    );
    if (Object.hasOwn(answers, 'ask')) question.answer(answers.ask);
    else question.refuse(new UpstreamError(JsonRpcCode.InternalError, 'the client gave no answer'));
  } catch (err) {
    question.refuse(new UpstreamError(JsonRpcCode.InternalError, (err as Error).message));
  }
}

/** The inputRequests key of a round's question. */
function questionKey(round: number): string {
  // Not a step's name (those are manifest names), so a tool's own steps never meet it.
  return `upstream/${round}`;
}

function notTaken(rounds: Rounds, why: string): string {
  if (why === 'principal')
    return `This retry continues a call another caller started; it was refused, and that call was cancelled upstream. Call the tool again without requestState.`;
  return (
    `The upstream call this retry continues is not held by this mcp-run process: it expired (the source ${rounds.source}'s ` +
    `timeoutMs, ${rounds.timeoutMs} ms, bounds the upstream call and each wait for an answer), or the process restarted or ` +
    `reloaded, or this retry reached another replica or worker than the call's first round (send a client's retries to the ` +
    `same process). Nothing was sent upstream; call the tool again without requestState to start over.`
  );
}
