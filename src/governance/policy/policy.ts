/**
 * Policies: who may use an entry, and what of its results they may see.
 *
 * A policy is `allow` and/or `deny` (CEL, cel.ts) plus output rules (mask.ts). It is declared in
 * `server.policies` under a name (applied where an entry or toolset names it, or to every entry with
 * `appliesTo: all`), or inline in an entry's or toolset's `policy:`. The combining rule:
 *
 * - every policy that applies to a call must pass: server-wide ones, then the toolset's, then the
 *   entry's own, in that order; a policy passes when its `allow` (if any) holds and its `deny` (if
 *   any) does not; the first that does not pass refuses the call, by its name;
 * - an expression that cannot be evaluated (a claim the token lacks) refuses too: it fails closed,
 *   and the reason is logged, never sent;
 * - output rules of every applying policy whose `when` holds (and `unless` does not) are applied
 *   together.
 *
 * An entry a caller's claims alone refuse (an expression that reads no `args` decides it) is left
 * out of that caller's lists; one whose decision depends on the arguments stays listed.
 */
import { GovernanceRefusal } from '../refusal.js';
import type { CompiledExpression, EntryFacts, PolicyInput } from './cel.js';
import type { DetectorName } from './detectors.js';
import type { CompiledPath, Masking } from './mask.js';

/** One output rule as the manifest declares it. */
export interface OutputRuleConfig {
  readonly when?: string;
  readonly unless?: string;
  readonly mask?: readonly string[];
  readonly drop?: readonly string[];
  readonly columns?: readonly string[];
  readonly detect?: readonly DetectorName[];
}

/** One policy as the manifest declares it (`server.policies.<name>`, or inline in `policy:`). */
export interface PolicyConfig {
  readonly description?: string;
  readonly appliesTo?: 'all' | 'named';
  readonly allow?: string;
  readonly deny?: string;
  readonly output?: readonly OutputRuleConfig[];
}

/** An entry's or a toolset's `policy:`: server policies by name, inline ones, or a mix. */
export type PolicyField = string | PolicyConfig | readonly (string | PolicyConfig)[];

export interface CompiledOutputRule {
  readonly when?: CompiledExpression;
  readonly unless?: CompiledExpression;
  readonly masking: Masking;
}

export interface CompiledPolicy {
  /**
   * What the caller is told refused it: the server policy's name, or for a policy written inline
   * `<section>.<entry>` (`toolsets.<name>` for a toolset's).
   */
  readonly name: string;
  readonly allow?: CompiledExpression;
  readonly deny?: CompiledExpression;
  readonly output: readonly CompiledOutputRule[];
}

/** How a policy stage reports what it could not evaluate (logged, never sent to the caller). */
export type PolicyLog = (message: string) => void;

/**
 * The policies that apply to one entry as served in one place (the whole catalog, or a toolset),
 * in the order the combining rule reads them.
 */
export class EntryPolicy {
  /** Whether any expression reads only the caller (claims, entry, toolset): lists filter by it. */
  readonly filtersLists: boolean;
  readonly masks: boolean;

  /** Server-wide (`appliesTo: all`) ones, the toolset's, then the entry's own (named or inline). */
  readonly policies: readonly CompiledPolicy[];

  constructor(
    readonly entry: EntryFacts,
    private readonly serverWide: readonly CompiledPolicy[],
    private readonly own: readonly CompiledPolicy[],
    private readonly log: PolicyLog,
    /** Declared defaults of absent top-level arguments, so `args.limit` sees what will run. */
    private readonly defaults: Readonly<Record<string, unknown>> | undefined,
    readonly toolset = '',
    toolsetPolicies: readonly CompiledPolicy[] = [],
  ) {
    this.policies = [...serverWide, ...toolsetPolicies, ...own];
    this.filtersLists = this.policies.some(
      (p: CompiledPolicy) =>
        (p.allow !== undefined && !p.allow.readsArgs) || (p.deny !== undefined && !p.deny.readsArgs),
    );
    this.masks = this.policies.some((p: CompiledPolicy) => p.output.length > 0);
  }

  /** The same entry served through `toolset`, with that toolset's policies added before its own. */
  inToolset(toolset: string, added: readonly CompiledPolicy[]): EntryPolicy {
    return new EntryPolicy(this.entry, this.serverWide, this.own, this.log, this.defaults, toolset, added);
  }

  /** Whether any policy applies at all (an entry with none is served as if policies did not exist). */
  get empty(): boolean {
    return this.policies.length === 0;
  }

  /** The input of one decision. */
  input(
    claims: Readonly<Record<string, unknown>> | undefined,
    args: Readonly<Record<string, unknown>>,
  ): PolicyInput {
    return {
      claims: claims ?? NO_CLAIMS,
      args: this.defaults === undefined ? args : { ...this.defaults, ...args },
      entry: this.entry,
      toolset: this.toolset,
    };
  }

  /** Throws the refusal of the first policy that does not pass. */
  decide(input: PolicyInput): void {
    for (const policy of this.policies) {
      if (!this.passes(policy, input, false))
        throw new GovernanceRefusal(
          'deny',
          policy.name,
          `The policy "${policy.name}" does not allow this ${noun(this.entry.section)} for this caller.`,
        );
    }
  }

  /** Whether the caller's claims alone refuse the entry (whatever the arguments): then it is not listed. */
  hidden(claims: Readonly<Record<string, unknown>> | undefined): boolean {
    const input = this.input(claims, NO_ARGS);
    return this.policies.some((policy) => !this.passes(policy, input, true));
  }

  /** The masking the output rules ask for this caller, or undefined when nothing is masked. */
  masking(input: PolicyInput): Masking | undefined {
    const mask: CompiledPath[] = [];
    const drop: CompiledPath[] = [];
    const detect = new Set<DetectorName>();
    for (const policy of this.policies) {
      for (const rule of policy.output) {
        if (!this.applies(policy, rule, input)) continue;
        mask.push(...rule.masking.mask);
        drop.push(...rule.masking.drop);
        for (const d of rule.masking.detect) detect.add(d);
      }
    }
    if (mask.length === 0 && drop.length === 0 && detect.size === 0) return undefined;
    return { mask, drop, detect: [...detect] };
  }

  /** `callerOnly`: judge only the expressions that read no arguments (the others pass). */
  private passes(policy: CompiledPolicy, input: PolicyInput, callerOnly: boolean): boolean {
    const { allow, deny } = policy;
    if (
      allow !== undefined &&
      !(callerOnly && allow.readsArgs) &&
      !this.holds(policy, 'allow', allow, input, false)
    )
      return false;
    if (
      deny !== undefined &&
      !(callerOnly && deny.readsArgs) &&
      this.holds(policy, 'deny', deny, input, true)
    )
      return false;
    return true;
  }

  /** A rule applies unless `when` fails or `unless` holds; one that cannot be evaluated applies. */
  private applies(policy: CompiledPolicy, rule: CompiledOutputRule, input: PolicyInput): boolean {
    if (rule.when !== undefined && !this.holds(policy, 'output when', rule.when, input, true)) return false;
    if (rule.unless !== undefined && this.holds(policy, 'output unless', rule.unless, input, false))
      return false;
    return true;
  }

  /** Evaluates; a failure is logged and counts as `failed` (the value that refuses, or masks). */
  private holds(
    policy: CompiledPolicy,
    what: string,
    expression: CompiledExpression,
    input: PolicyInput,
    failed: boolean,
  ): boolean {
    try {
      return expression.holds(input);
    } catch (err) {
      const reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
      this.log(
        `policy "${policy.name}" (${what}) on ${this.entry.section}.${this.entry.name} could not be evaluated, so it refuses: ${reason}`,
      );
      return failed;
    }
  }
}

const NO_CLAIMS: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_ARGS: Readonly<Record<string, unknown>> = Object.freeze({});

function noun(section: EntryFacts['section']): string {
  return section === 'tools' ? 'tool' : section === 'resources' ? 'resource' : 'prompt';
}
