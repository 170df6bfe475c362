/**
 * Wraps a kind's compiled tool with what every tool needs: argument validation (defaults applied),
 * the interactive steps the manifest declares (roots, ask, confirm, sample; see steps-run.ts), the
 * declared outputSchema enforced on structured results, and failures turned into results the model
 * can act on instead of protocol errors.
 *
 * What stays a protocol matter is thrown on: InputRequired (a 2026 call ends with
 * `input_required`), and in the 2026 era a missing client capability (-32021) or an invalid input
 * response (-32602). In the 2025 era those two are tool errors, like a question that timed out.
 */
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
class WrappedTool implements CatalogTool {
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

  constructor(
    readonly descriptor: ToolDescriptor,
    private readonly compiled: CompiledTool,
    { validateArgs, validateOutput, maxConcurrency, task, claims = NO_CLAIMS, view }: ToolChecks,
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
  }

  call(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const observed = ops.toolCall(this.descriptor.name);
    return withLogFields(this.fields, () => observed.run(() => this.checkedCall(args, ctx))).then(
      (result) => {
        this.ended(observed, refusals.has(result) ? 'refused' : result.isError ? 'tool_error' : 'ok');
        return result;
      },
      (err: unknown) => {
        this.ended(observed, err instanceof InputRequired ? 'input_required' : 'protocol_error');
        throw err;
      },
    );
  }

  private ended(observed: CallObservation, outcome: CallOutcome): void {
    observed.end(outcome);
    withLogFields(this.fields, () => this.log.debug(`tool ${this.descriptor.name}: ${outcome}`));
  }

  private async checkedCall(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const name = this.descriptor.name;
    const claims = this.claims;
    // Defaults are written into the arguments: work on a copy of the top level. (Nested defaults
    // land in the request's own parsed objects, which nothing else reads; a deep copy per call
    // showed up in the profile.)
    const values = { ...args };
    // Strict clients (OpenAI's Agents SDK) send null for an optional argument they leave out.
    for (const key of this.nullMeansAbsent) if (values[key] === null) delete values[key];
    // A claim-bound argument the caller tries to set is refused before anything else looks at it.
    const override = claims.length > 0 ? claimOverride(`Tool ${name}`, claims, values) : undefined;
    if (override !== undefined) return errorResult(override);
    const invalid = this.validateArgs(values);
    if (invalid) return errorResult(`Invalid arguments for tool ${name}: ${invalid}.`);
    const unbound = bindClaims(`Tool ${name}`, claims, values, ctx.identity);
    if (unbound !== undefined) return errorResult(unbound);
    // Only the action's own result has to match the outputSchema, not "cancelled by the user".
    let acted: ToolResult | undefined;
    let result: ToolResult;
    if (this.steps === undefined) {
      result = await this.action(values, ctx);
      acted = result;
    } else {
      const act = async (v: Readonly<Record<string, unknown>>) => (acted = await this.action(v, ctx));
      result = await this.interactive(values, ctx, this.steps, act);
    }
    if (this.validateOutput && result === acted && !result.isError) {
      const mismatch = this.validateOutput(result.structuredContent);
      if (mismatch) {
        return errorResult(
          `Tool ${name} produced a result that does not match its outputSchema: ${mismatch}.`,
        );
      }
    }
    return result;
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
