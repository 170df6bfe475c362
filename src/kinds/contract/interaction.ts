/**
 * The interaction API: how a running call asks the client for something (the user, through a form;
 * the client's model; the client's roots) without knowing which protocol era it is served in.
 *
 * - 2025 era: each question is a server→client JSON-RPC request on the call's channel, awaited
 *   with a time limit and cancelled with the call.
 * - 2026 era (MRTR): questions cannot be sent; the call ends with `input_required`, and the
 *   client's retry carries the answers (`inputResponses`) and the state this server signed
 *   (`requestState`), which is where the call resumes.
 *
 * Here, below every room that uses it, because both sides do: the steps (steps/run.ts) and a kind
 * that relays another server's questions (kinds/mcp/held.ts) ask through it, and the protocol core
 * implements it (protocol/interaction.ts, protocol/task-call.ts). Nothing here knows JSON-RPC
 * framing or YAML; the steps' own faults stay in steps/interaction.ts.
 */

/** The three things a server may ask a client for. */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** One question, as a 2026 `inputRequests` value or the method + params of a 2025 request. */
export interface InputRequest {
  readonly method: InputMethod;
  readonly params: Readonly<Record<string, unknown>>;
}

export type InputRequests = Readonly<Record<string, InputRequest>>;

/**
 * What a call carries from one 2026 round to the next. The protocol signs it into `requestState`
 * (with the tool, a digest of the arguments and an expiry), so it comes back unaltered or not at all.
 */
export interface CarriedState {
  /** Values the steps produced so far (answers, roots, sampled text). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Keys of the steps already settled. */
  readonly done: readonly string[];
  /** The action's result text, once it ran: a later round only samples, it never runs the action again. */
  readonly result?: string;
}

export interface Interaction {
  /** True in the 2026 era: answers arrive with a retry; faults are protocol errors. */
  readonly stateless: boolean;
  /** Whether the client declared what `method` needs (elicitation in form mode, sampling, roots). */
  supports(method: InputMethod): boolean;
  /**
   * True inside a 2026 task: `gather` waits until every question has its answer (delivered by
   * `tasks/update`), so a round is asked whole and the call never ends with InputRequired.
   */
  readonly waits?: boolean;
  /** The state of a verified `requestState` (2026), else undefined. */
  readonly carried: CarriedState | undefined;
  /**
   * Puts the questions to the client and resolves with the raw answers by key (the engine checks
   * them). 2025: real requests, answered or rejected with InteractionFailed (timeout, an error
   * from the client) or the call's abort reason. 2026: the answers the retry carries; keys it
   * lacks are absent.
   */
  gather(requests: InputRequests, timeoutMs: number): Promise<Record<string, unknown>>;
}

/** Thrown to end a 2026 call with `input_required`: these questions, then resume from `state`. */
export class InputRequired extends Error {
  constructor(
    readonly requests: InputRequests,
    readonly state: CarriedState,
  ) {
    super(`input required: ${Object.keys(requests).join(', ')}`);
    this.name = 'InputRequired';
  }
}
