/**
 * Wraps a kind's compiled tool with what every tool needs, as one sequence of named stages
 * (`checkedCall`):
 *
 *   resolve → policy → validate → bind claims → limits → run → shape
 *
 * - resolve: the protocol side found the tool in the request's view (catalog/toolsets.ts), which
 *   bound it to the toolset it is served through;
 * - policy: the manifest's policies (governance/policy/) allow or refuse the call (a thrown
 *   GovernanceRefusal);
 * - validate: optional nulls dropped, claim-bound arguments refused, the arguments checked against
 *   the input schema with defaults applied;
 * - bind claims: `fromClaim` inputs filled from the verified token (claims.ts);
 * - limits: the per-caller rates and caps (governance/limits/), which may refuse the call or hold a
 *   cap's slot until it ends;
 * - run: the interactive steps (steps/run.ts) around the action: a concurrency slot, the kind's run;
 *   the declared outputSchema enforced on the action's structured result;
 * - shape: the output rules' masking, on the structured result and the text the model reads.
 *
 * The audit trail records each call at the protocol method, around all of this. A tool with no
 * policies and no limits pays for neither: the stages are skipped without allocating.
 *
 * Failures come back as results the model can act on instead of protocol errors.
 * What stays a protocol matter is thrown on: InputRequired (a 2026 call ends with
 * `input_required`), and in the 2026 era a missing client capability (-32021) or an invalid input
 * response (-32602). In the 2025 era those two are tool errors, like a question that timed out.
 */
import { type CallLimits, withLimits } from '../governance/limits/gate.js';
import type { EntryPolicy } from '../governance/policy/policy.js';
import { shapeToolResult } from '../governance/policy/shape.js';
import { GovernanceRefusal } from '../governance/refusal.js';
import type { CompiledTool } from '../kinds/contract/kinds.js';
import { errorResult } from '../kinds/contract/results.js';
import { type Logger, withLogFields } from '../log.js';
import type { Validator } from '../manifest/user-schemas.js';
import { type CallObservation, type CallOutcome, ops } from '../ops/hooks.js';
import {
  InputRequired,
  InteractionFailed,
  InvalidInputResponse,
  MissingClientCapability,
} from '../steps/interaction.js';
import type { StepPlan } from '../steps/plan.js';
import { NO_INTERACTION, runTool } from '../steps/run.js';
import { isObject } from '../util/is-object.js';
import { acquire, type Cancellable, QUEUE_WAIT_MS, Slots, tryAcquire } from '../util/slots.js';
import { bindClaims, type ClaimBinding, claimOverride } from './claims.js';
import type {
  CallerIdentity,
  CatalogTool,
  JsonSchema,
  ToolCallContext,
  ToolDescriptor,
  ToolResult,
  ToolTaskMode,
  ToolView,
} from './types.js';

/** All tool calls of this process running at once, whatever the tool. */
export const ALL_CALLS_LIMIT = 64;
const allCalls = new Slots(ALL_CALLS_LIMIT);
// Results that say a limit refused the call, told apart for the metrics' outcome label: one set for
// every tool (a set per tool was a WeakSet per tool, for results that are rare).
const refusals = new WeakSet<ToolResult>();

/** What the catalog checks around a kind's run. */
export interface ToolChecks {
  readonly validateArgs: Validator;
  readonly validateOutput: Validator | undefined;
  /** Calls of this tool at once; undefined: only the process-wide limit. */
  readonly maxConcurrency: number | undefined;
  /** Inputs whose values come from the caller's verified token (claims.ts); none by default. */
  readonly claims?: readonly ClaimBinding[];
  readonly task: ToolTaskMode;
  /** The policies that apply to the tool (governance/policy/); undefined: none. */
  readonly policy?: EntryPolicy;
  /** The limits per caller on this tool (the server's, its toolsets', its own); none by default. */
  readonly limits?: CallLimits | undefined;
  /** The tool's MCP Apps view (views.ts). */
  readonly view?: ToolView;
}

export function wrapTool(
  descriptor: ToolDescriptor,
  compiled: CompiledTool,
  checks: ToolChecks,
  log: Logger,
  steps?: StepPlan,
): CatalogTool {
  return new WrappedTool(descriptor, compiled, checks, log, steps);
}

/**
 * A class, not closures over wrapTool's arguments: a catalog holds one per tool for its whole life,
 * and four closures with their scope were about 0.4 KB of each of 10,000 tools.
 */
export class WrappedTool implements CatalogTool {
  readonly task: ToolTaskMode;
  declare readonly view?: ToolView;
  private readonly validateArgs: Validator;
  private readonly validateOutput: Validator | undefined;
  private readonly claims: readonly ClaimBinding[];
  /** Optional arguments a strict client may send as null (see optionalNonNullable). */
  private readonly nullMeansAbsent: readonly string[];
  /** This tool's own slots (maxConcurrency), if it has a limit. */
  private readonly own: Slots | undefined;
  private readonly limits: readonly Slots[];
  /** The log fields of this tool's calls. */
  private readonly fields: { readonly tool: string };
  /** Undefined when no policy applies: the policy and shape stages are skipped. */
  private readonly policy: EntryPolicy | undefined;
  /** As compiled, also when empty: a toolset's view adds its own to it. */
  private readonly declared: EntryPolicy | undefined;
  private readonly callLimits: CallLimits | undefined;

  constructor(
    readonly descriptor: ToolDescriptor,
    private readonly compiled: CompiledTool,
    {
      validateArgs,
      validateOutput,
      maxConcurrency,
      task,
      claims = NO_CLAIMS,
      policy,
      limits,
      view,
    }: ToolChecks,
    private readonly log: Logger,
    private readonly steps: StepPlan | undefined,
  ) {
    this.task = task;
    // Only a tool with a view has the field: ten thousand plain tools carry no slot for it.
    if (view !== undefined) (this as { view?: ToolView }).view = view;
    this.validateArgs = validateArgs;
    this.validateOutput = validateOutput;
    this.claims = claims;
    this.nullMeansAbsent = optionalNonNullable(descriptor.inputSchema);
    this.own = maxConcurrency === undefined ? undefined : new Slots(maxConcurrency);
    this.limits = this.own ? [this.own, allCalls] : ONLY_ALL_CALLS;
    this.fields = { tool: descriptor.name };
    this.policy = policy === undefined || policy.empty ? undefined : policy;
    this.declared = policy;
    this.callLimits = limits;
  }

  /** The policy stage alone, for a call about to become a task (protocol/task-call.ts). */
  screen(args: Record<string, unknown>, identity: CallerIdentity | undefined): void {
    const policy = this.policy;
    if (policy !== undefined) policy.decide(policy.input(identity?.claims, this.present(args)));
  }

  /** The policies this tool was compiled with (also when none applies), for a toolset's view. */
  get policies(): EntryPolicy | undefined {
    return this.declared;
  }

  /**
   * The same tool under other policies (served through a toolset): everything else, its
   * concurrency slots included, is shared.
   */
  withPolicy(policy: EntryPolicy): WrappedTool {
    const copy = Object.create(WrappedTool.prototype) as WrappedTool;
    Object.assign(copy, this);
    const settable = copy as unknown as {
      policy: EntryPolicy | undefined;
      declared: EntryPolicy | undefined;
    };
    settable.policy = policy.empty ? undefined : policy;
    settable.declared = policy;
    return copy;
  }

  call(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const observed = ops.toolCall(this.descriptor.name);
    return withLogFields(this.fields, () => observed.run(() => this.checkedCall(args, ctx))).then(
      (result) => {
        this.ended(observed, refusals.has(result) ? 'refused' : result.isError ? 'tool_error' : 'ok');
        return result;
      },
      (err: unknown) => {
        this.ended(observed, outcomeOf(err));
        throw err;
      },
    );
  }

  private ended(observed: CallObservation, outcome: CallOutcome): void {
    observed.end(outcome);
    withLogFields(this.fields, () => this.log.debug(`tool ${this.descriptor.name}: ${outcome}`));
  }

  /** The stages, in order (see the top of this file). */
  private async checkedCall(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const values = this.present(args);
    const policy = this.policy;
    const decided = policy === undefined ? undefined : this.decide(policy, values, ctx);
    const invalid = this.validate(values) ?? this.bind(values, ctx);
    if (invalid !== undefined) return invalid;
    const result = await this.limited(values, ctx);
    return decided === undefined ? result : this.shape(decided.policy, decided.input, result);
  }

  /**
   * The arguments to work on: a copy of the top level, as defaults are written into it (nested
   * defaults land in the request's own parsed objects, which nothing else reads; a deep copy per
   * call showed up in the profile), without the nulls strict clients (OpenAI's Agents SDK) send for
   * an optional argument they leave out.
   */
  private present(args: Record<string, unknown>): Record<string, unknown> {
    const values = { ...args };
    for (const key of this.nullMeansAbsent) if (values[key] === null) delete values[key];
    return values;
  }

  /** Stage policy: throws the refusal; returns the decision's input, which shape reuses. */
  private decide(policy: EntryPolicy, values: Record<string, unknown>, ctx: ToolCallContext) {
    const input = policy.input(ctx.identity?.claims, values);
    policy.decide(input);
    return { policy, input };
  }

  /** Stage validate: a claim-bound argument the caller set is refused first, then the schema. */
  private validate(values: Record<string, unknown>): ToolResult | undefined {
    const name = this.descriptor.name;
    const claims = this.claims;
    const override = claims.length > 0 ? claimOverride(`Tool ${name}`, claims, values) : undefined;
    if (override !== undefined) return errorResult(override);
    const invalid = this.validateArgs(values);
    return invalid ? errorResult(`Invalid arguments for tool ${name}: ${invalid}.`) : undefined;
  }

  /** Stage bind claims. */
  private bind(values: Record<string, unknown>, ctx: ToolCallContext): ToolResult | undefined {
    const unbound = bindClaims(`Tool ${this.descriptor.name}`, this.claims, values, ctx.identity);
    return unbound === undefined ? undefined : errorResult(unbound);
  }

  /**
   * Stage limits, around stage run: a refusal is thrown (a JSON-RPC error with when to retry); a
   * cap's slot is held until the run ends. A 2026 round that carries its verified requestState
   * continues a call the rates already counted.
   */
  private limited(values: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const limits = this.callLimits;
    if (limits === undefined) return this.run(values, ctx);
    const continued = ctx.interaction?.carried !== undefined;
    return withLimits(limits, ctx.client, () => this.run(values, ctx), { continued });
  }

  /**
   * Stage run: the steps around the action; only the action's own result meets the outputSchema.
   * Not async: a tool without steps or outputSchema hands the action's own promise on.
   */
  private run(values: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    if (this.steps !== undefined) return this.runSteps(values, ctx, this.steps);
    const acted = this.action(values, ctx);
    return this.validateOutput === undefined ? acted : acted.then((result) => this.checkOutput(result));
  }

  private async runSteps(values: Record<string, unknown>, ctx: ToolCallContext, plan: StepPlan) {
    let acted: ToolResult | undefined;
    const act = async (v: Readonly<Record<string, unknown>>) => (acted = await this.action(v, ctx));
    const result = await this.interactive(values, ctx, plan, act);
    return result === acted ? this.checkOutput(result) : result;
  }

  /** The declared outputSchema, on a structured result that is not an error. */
  private checkOutput(result: ToolResult): ToolResult {
    if (this.validateOutput === undefined || result.isError) return result;
    const mismatch = this.validateOutput(result.structuredContent);
    if (!mismatch) return result;
    return errorResult(
      `Tool ${this.descriptor.name} produced a result that does not match its outputSchema: ${mismatch}.`,
    );
  }

  /** Stage shape: what the output rules hide from this caller, in the structure and in the text. */
  private shape(
    policy: EntryPolicy,
    input: ReturnType<EntryPolicy['input']>,
    result: ToolResult,
  ): ToolResult {
    if (!policy.masks) return result;
    const masking = policy.masking(input);
    if (masking === undefined) return result;
    const shaped = shapeToolResult(result, masking);
    // A refusal stays one for the metrics.
    if (refusals.has(result)) refusals.add(shaped);
    return shaped;
  }

  private async action(values: Readonly<Record<string, unknown>>, ctx: ToolCallContext): Promise<ToolResult> {
    const name = this.descriptor.name;
    const own = this.own;
    // Free slots (the common case) are taken at once; only a full limit makes the call wait.
    // A request's context says it was cancelled without making its AbortSignal (`aborted`).
    const cancel: Cancellable = ctx;
    const now = (cancel.aborted ?? cancel.signal.aborted) ? undefined : tryAcquire(this.limits);
    const slot = now === undefined ? await acquire(this.limits, ctx) : { release: now };
    if ('refused' in slot) {
      if (slot.refused === 'cancelled') return errorResult(`Tool ${name} was cancelled before it started.`);
      const limit =
        own && own.active >= own.max
          ? `maxConcurrency ${own.max} of this tool`
          : `the limit of ${ALL_CALLS_LIMIT} calls for the whole server`;
      const refused = errorResult(
        `Tool ${name} did not start: too many calls are running (${limit}) and none finished within ${QUEUE_WAIT_MS} ms. This is temporary: retry the call shortly.`,
      );
      refusals.add(refused);
      return refused;
    }
    try {
      return await this.compiled.run(values, ctx);
    } catch (err) {
      // A mirrored prompt's `ask` forms (mirror.ts) end a 2026 call with input_required, like steps.
      if (err instanceof InputRequired) throw err;
      if (ctx.signal.aborted) return errorResult(`Tool ${name} was cancelled.`);
      this.log.error(`tool ${name} failed: ${(err as Error).stack ?? String(err)}`);
      return errorResult(`Tool ${name} failed: ${(err as Error).message}`);
    } finally {
      slot.release();
    }
  }

  private async interactive(
    values: Record<string, unknown>,
    ctx: ToolCallContext,
    plan: StepPlan,
    act: (values: Readonly<Record<string, unknown>>) => Promise<ToolResult>,
  ): Promise<ToolResult> {
    const name = this.descriptor.name;
    const interaction = ctx.interaction ?? NO_INTERACTION;
    try {
      return await runTool(plan, values, interaction, `Tool ${name}`, act);
    } catch (err) {
      if (err instanceof InputRequired) throw err;
      if (ctx.signal.aborted) return errorResult(`Tool ${name} was cancelled.`);
      const protocolFault = err instanceof MissingClientCapability || err instanceof InvalidInputResponse;
      if (protocolFault && interaction.stateless) throw err;
      if (err instanceof MissingClientCapability) return errorResult(`${err.message}`);
      if (protocolFault || err instanceof InteractionFailed) {
        return errorResult(`Tool ${name} stopped: ${(err as Error).message}. Nothing more was done.`);
      }
      this.log.error(`tool ${name} failed: ${(err as Error).stack ?? String(err)}`);
      return errorResult(`Tool ${name} failed: ${(err as Error).message}`);
    }
  }
}

/** A policy's or a limit's refusal is a refusal for the metrics, like a full concurrency limit. */
function outcomeOf(err: unknown): CallOutcome {
  if (err instanceof InputRequired) return 'input_required';
  return err instanceof GovernanceRefusal ? 'refused' : 'protocol_error';
}

const NO_CLAIMS: readonly ClaimBinding[] = [];
const ONLY_ALL_CALLS: readonly Slots[] = [allCalls];

/** Top-level arguments that are optional and whose schema does not itself allow null. */
function optionalNonNullable(schema: JsonSchema): readonly string[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const keys = Object.entries(properties)
    .filter(([key, property]) => !required.has(key) && isObject(property) && !allowsNull(property))
    .map(([key]) => key);
  return keys.length === 0 ? NO_KEYS : keys;
}

const NO_KEYS: readonly string[] = [];

/** Conservative: a schema with no `type`, or one that names null anywhere, allows null. */
function allowsNull(property: Record<string, unknown>): boolean {
  const { type } = property;
  if (type === undefined) return true;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(property.enum) && property.enum.includes(null)) return true;
  return property.const === null;
}
