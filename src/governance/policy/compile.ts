/**
 * Compiles the manifest's policies at load: every expression once, every problem reported at the
 * expression's place (file:line:col), all of them together.
 *
 * A server policy an entry names is checked against that entry's input (its `args` fields and their
 * types); one that applies everywhere (`appliesTo: all`) and a toolset's see `args` as a map of
 * anything, since they apply to entries of every shape.
 */
import { type Problem, problems } from '../../errors.js';
import type { JsonSchema } from '../../kinds/contract/types.js';
import { suggest } from '../../util/suggest.js';
import { type ArgTypes, argTypes, type CompiledExpression, type EntryFacts, PolicyLanguage } from './cel.js';
import { type CompiledPath, parsePath } from './mask.js';
import {
  type CompiledOutputRule,
  type CompiledPolicy,
  EntryPolicy,
  type PolicyConfig,
  type PolicyField,
  type PolicyLog,
} from './policy.js';

export type PolicyPath = readonly (string | number)[];
/** `needle`: the text at the problem, to place the caret inside the expression. */
export type PolicyReport = (path: PolicyPath, problem: Problem, needle?: string) => void;

export class PolicyCompiler {
  private readonly language = new PolicyLanguage();
  private readonly declared: Readonly<Record<string, PolicyConfig>>;
  /** `appliesTo: all`, compiled once. */
  private readonly everywhere: readonly CompiledPolicy[];
  /** A named server policy compiled for one argument shape. */
  private readonly named = new Map<string, CompiledPolicy | undefined>();
  private readonly reported = new Set<string>();

  constructor(
    declared: Readonly<Record<string, PolicyConfig>> | undefined,
    private readonly report: PolicyReport,
    private readonly log: PolicyLog,
  ) {
    this.declared = declared ?? {};
    const everywhere: CompiledPolicy[] = [];
    for (const [name, config] of Object.entries(this.declared)) {
      const compiled = this.compilePolicy(name, config, ['server', 'policies', name], undefined);
      if (config.appliesTo === 'all' && compiled !== undefined) everywhere.push(compiled);
    }
    this.everywhere = everywhere;
  }

  /**
   * The policy of one entry: server-wide ones plus what its `policy:` names or holds; `empty` when
   * none applies (the call path then skips the stage; a toolset's view may still add its own).
   */
  forEntry(
    entry: EntryFacts,
    field: PolicyField | undefined,
    input: JsonSchema | undefined,
    defaults?: Readonly<Record<string, unknown>>,
  ): EntryPolicy {
    const types = input === undefined ? undefined : argTypes(input);
    const own = this.field(
      field,
      [entry.section, entry.name, 'policy'],
      `${entry.section}.${entry.name}`,
      types,
    );
    const usable = defaults !== undefined && Object.keys(defaults).length > 0 ? defaults : undefined;
    return new EntryPolicy(entry, this.everywhere, own, this.log, usable);
  }

  /** A toolset's `policy:`, applied to what is served through it. */
  forToolset(name: string, field: PolicyField | undefined): readonly CompiledPolicy[] {
    return this.field(field, ['toolsets', name, 'policy'], `toolsets.${name}`, undefined);
  }

  private field(
    field: PolicyField | undefined,
    at: PolicyPath,
    inlineName: string,
    types: ArgTypes | undefined,
  ): CompiledPolicy[] {
    if (field === undefined) return [];
    const items = Array.isArray(field) ? field : [field];
    const out: CompiledPolicy[] = [];
    items.forEach((item: string | PolicyConfig, i: number) => {
      const path = Array.isArray(field) ? [...at, i] : at;
      const compiled =
        typeof item === 'string'
          ? this.namedPolicy(item, path, types)
          : this.compilePolicy(inlineName, item, path, types);
      if (compiled !== undefined) out.push(compiled);
    });
    return out;
  }

  private namedPolicy(name: string, at: PolicyPath, types: ArgTypes | undefined): CompiledPolicy | undefined {
    const config = Object.hasOwn(this.declared, name) ? this.declared[name] : undefined;
    if (config === undefined) {
      const known = Object.keys(this.declared);
      this.once(at, problems.POLICY_UNKNOWN(name, known, suggest(name, known)));
      return undefined;
    }
    // Applied everywhere already: naming it again would only evaluate it twice.
    if (config.appliesTo === 'all') return undefined;
    const key = `${name}\n${JSON.stringify(types ?? null)}`;
    if (!this.named.has(key))
      this.named.set(key, this.compilePolicy(name, config, ['server', 'policies', name], types));
    return this.named.get(key);
  }

  private compilePolicy(
    name: string,
    config: PolicyConfig,
    at: PolicyPath,
    types: ArgTypes | undefined,
  ): CompiledPolicy | undefined {
    let failed = false;
    const expression = (text: string | undefined, path: PolicyPath): CompiledExpression | undefined => {
      if (text === undefined) return undefined;
      const compiled = this.language.compile(text, types);
      if ('holds' in compiled) return compiled;
      failed = true;
      const problem =
        compiled.kind === 'syntax'
          ? problems.POLICY_SYNTAX(compiled.message)
          : problems.POLICY_TYPE(compiled.message, types === undefined ? undefined : Object.keys(types));
      // The rest of the expression from the offending character, to find it in the YAML text.
      const needle = compiled.offset > 0 && !text.includes('\n') ? text.slice(compiled.offset) : undefined;
      this.once(path, problem, needle);
      return undefined;
    };
    const allow = expression(config.allow, [...at, 'allow']);
    const deny = expression(config.deny, [...at, 'deny']);
    const output: CompiledOutputRule[] = [];
    (config.output ?? []).forEach((rule, i) => {
      const ruleAt = [...at, 'output', i];
      const when = expression(rule.when, [...ruleAt, 'when']);
      const unless = expression(rule.unless, [...ruleAt, 'unless']);
      const paths = (list: readonly string[] | undefined, field: string): CompiledPath[] =>
        (list ?? []).flatMap((text, j) => {
          const parsed = parsePath(text);
          if (typeof parsed !== 'string') return [parsed];
          failed = true;
          this.once([...ruleAt, field, j], problems.MANIFEST_INVALID_VALUE(parsed));
          return [];
        });
      const mask = [
        ...paths(rule.mask, 'mask'),
        ...(rule.columns ?? []).map(
          (column): CompiledPath => [{ key: 'rows' }, { every: true }, { key: column }],
        ),
      ];
      output.push({
        ...(when !== undefined && { when }),
        ...(unless !== undefined && { unless }),
        masking: { mask, drop: paths(rule.drop, 'drop'), detect: rule.detect ?? [] },
      });
    });
    if (failed) return undefined;
    return {
      name,
      ...(allow !== undefined && { allow }),
      ...(deny !== undefined && { deny }),
      output,
    };
  }

  /** A named server policy is compiled once per argument shape: its problems are reported once. */
  private once(path: PolicyPath, problem: Problem, needle?: string): void {
    const key = JSON.stringify([path, problem.code, problem.message]);
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.report(path, problem, needle);
  }
}
