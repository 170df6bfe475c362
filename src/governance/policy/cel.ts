/**
 * CEL (the Common Expression Language) for policies, through @marcbachmann/cel-js: an Environment
 * that declares the variables a policy may read and type-checks an expression against them at load,
 * with no dependencies. CEL itself has no loops or recursion, so an expression ends; what is left to
 * bound is its size (the parser's limits below) and its work on what the caller sends. A macro inside
 * another macro's body is refused, but one macro is not linear either: `args.a.all(x, !(x in args.b))`
 * is |a| × |b|. So an expression that reads `args` is evaluated only on arguments of at most
 * MAX_ARGS_BYTES as JSON (larger ones refuse the call, fail closed). `matches()` is refused at load:
 * cel-js runs it with a backtracking JS RegExp, and an author's pattern on a caller's string can run
 * for seconds on a few dozen characters.
 *
 * The variables:
 * - `claims`: the verified access token's claims (a map; empty without OAuth);
 * - `args`: the arguments, typed from the entry's input where a property's type is simple (string,
 *   integer, number, boolean, array, object), `dyn` otherwise; a field the input does not declare is
 *   a type error at load;
 * - `entry`: `{name, section, annotations}` of the entry called;
 * - `toolset`: the toolset the request is served through ("" for the whole catalog).
 */
import { Environment, ParseError } from '@marcbachmann/cel-js';
import type { JsonSchema } from '../../kinds/contract/types.js';

/** The parser's bounds: an expression is a line of a policy, not a program. */
const LIMITS = {
  maxAstNodes: 500,
  maxDepth: 24,
  maxListElements: 100,
  maxMapEntries: 50,
  maxCallArguments: 8,
} as const;

/** The most an expression that reads `args` evaluates over: the arguments as JSON, in bytes. */
export const MAX_ARGS_BYTES = 64 * 1024;

/** Top-level argument → its CEL type. */
export type ArgTypes = Readonly<Record<string, string>>;

/** What a policy expression is evaluated against. */
export interface PolicyInput {
  readonly claims: Readonly<Record<string, unknown>>;
  readonly args: Readonly<Record<string, unknown>>;
  readonly entry: EntryFacts;
  readonly toolset: string;
}

export interface EntryFacts {
  readonly name: string;
  readonly section: 'tools' | 'resources' | 'prompts';
  readonly annotations: Readonly<Record<string, unknown>>;
}

export interface CompiledExpression {
  /** True when the expression holds; throws when it cannot be evaluated (a missing claim). */
  holds(input: PolicyInput): boolean;
  /** Whether it reads `args`: then its decision depends on the call, not only on the caller. */
  readonly readsArgs: boolean;
}

/** Why an expression does not compile, with the character it is about. */
export interface ExpressionProblem {
  readonly kind: 'syntax' | 'type';
  readonly message: string;
  /** Offset in the expression's text. */
  readonly offset: number;
}

/** The CEL type of each top-level property of an input schema. */
export function argTypes(schema: JsonSchema | undefined): ArgTypes {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const types: Record<string, string> = {};
  for (const [name, property] of Object.entries(properties)) {
    Object.defineProperty(types, name, { value: celType(property), enumerable: true });
  }
  return types;
}

function celType(schema: JsonSchema): string {
  const scalar = simpleType(schema);
  if (scalar !== 'list') return scalar;
  const items = schema.items as JsonSchema | undefined;
  const item = items === undefined ? 'dyn' : simpleType(items);
  return item === 'list' || item === 'dyn' ? 'list' : `list<${item}>`;
}

function simpleType(schema: JsonSchema): string {
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'list';
    case 'object':
      return 'map';
    default:
      return 'dyn';
  }
}

/** One environment per set of argument types; `undefined`: the entry takes no typed arguments. */
export class PolicyLanguage {
  private readonly base: Environment;
  private readonly withArgs = new Map<string, Environment>();

  constructor() {
    const base = new Environment({ limits: LIMITS, homogeneousAggregateLiterals: false })
      .registerVariable('claims', 'map')
      .registerVariable('entry', 'map')
      .registerVariable('toolset', 'string');
    // The parent is frozen by clone(): one clone without `args` for server-wide and toolset policies
    // (which apply to entries of every shape), one per argument shape for an entry's own.
    this.base = base.clone().registerVariable('args', 'map');
    this.root = base;
  }

  private readonly root: Environment;

  /**
   * Compiles `text`. `args`: the entry's argument types, or undefined where the policy may apply to
   * entries of any shape (then `args` is a map of anything).
   */
  compile(text: string, args: ArgTypes | undefined): CompiledExpression | ExpressionProblem {
    const env = args === undefined ? this.base : this.environmentFor(args);
    let program: ReturnType<Environment['parse']>;
    try {
      program = env.parse(text);
    } catch (err) {
      if (err instanceof ParseError)
        return { kind: 'syntax', message: err.summary ?? err.message, offset: err.range?.start ?? 0 };
      throw err;
    }
    // Before type-checking: `matches(s, re)` as a function is a type error too, with a less useful message.
    const regex = callTo(program.ast, 'matches');
    if (regex !== undefined)
      return {
        kind: 'syntax',
        message:
          'matches() is not allowed in a policy: it runs a backtracking regular expression on what the caller sends, which can take seconds; use startsWith(), endsWith(), contains(), or `in` a list',
        offset: regex,
      };
    const checked = env.check(text);
    if (!checked.valid) {
      const error = checked.error as { message: string; summary?: string; range?: { start: number } };
      return {
        kind: 'type',
        message: error.summary ?? error.message.split('\n')[0] ?? error.message,
        offset: error.range?.start ?? 0,
      };
    }
    if (checked.type !== 'bool' && checked.type !== 'dyn')
      return { kind: 'type', message: `the expression is a ${checked.type}, not a bool`, offset: 0 };
    const nested = nestedMacro(program.ast);
    if (nested !== undefined)
      return {
        kind: 'syntax',
        message: `the list macro ${nested.name}() is inside another one; nest at most one level, so a check's work stays bounded by the arguments' size`,
        offset: nested.offset,
      };
    const readsArgs = reads(program.ast, 'args');
    const types = args;
    return {
      readsArgs,
      holds(input) {
        if (readsArgs) checkArgsSize(input.args);
        const value = program({
          claims: input.claims,
          args: types === undefined || !readsArgs ? input.args : toCel(input.args, types),
          entry: input.entry,
          toolset: input.toolset,
        });
        return value === true;
      },
    };
  }

  private environmentFor(args: ArgTypes): Environment {
    const key = JSON.stringify(args);
    let env = this.withArgs.get(key);
    if (env === undefined) {
      env = this.root.clone().registerVariable({ name: 'args', schema: args as Record<string, string> });
      this.withArgs.set(key, env);
    }
    return env;
  }
}

interface AstNode {
  readonly op: string;
  readonly args: unknown;
  readonly start?: number;
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string';
}

/** Calls `visit` on every node, with how many list macros enclose it. */
function walk(node: unknown, visit: (node: AstNode, inMacros: number) => void, depth = 0): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit, depth);
    return;
  }
  if (!isNode(node)) return;
  visit(node, depth);
  const macro = node.op === 'rcall' && Array.isArray(node.args) && MACROS.has(String(node.args[0]));
  if (!Array.isArray(node.args)) return;
  // A macro's receiver is outside it; its body is inside.
  if (macro) {
    walk(node.args[1], visit, depth);
    walk(node.args[2], visit, depth + 1);
  } else walk(node.args, visit, depth);
}

function nestedMacro(ast: unknown): { name: string; offset: number } | undefined {
  let found: { name: string; offset: number } | undefined;
  walk(ast, (node, inMacros) => {
    const name = node.op === 'rcall' && Array.isArray(node.args) ? String(node.args[0]) : '';
    if (found === undefined && inMacros > 0 && MACROS.has(name)) found = { name, offset: node.start ?? 0 };
  });
  return found;
}

/** Where the expression calls the function `name` (as `x.name(…)` or `name(…)`), if it does. */
function callTo(ast: unknown, name: string): number | undefined {
  let found: number | undefined;
  walk(ast, (node) => {
    const call = (node.op === 'rcall' || node.op === 'call') && Array.isArray(node.args);
    if (found === undefined && call && (node.args as unknown[])[0] === name) found = node.start ?? 0;
  });
  return found;
}

/** The JSON size of each call's arguments, measured once however many expressions read them. */
const argsBytes = new WeakMap<object, number>();

/** Throws (the call is refused, fail closed) when the arguments are over MAX_ARGS_BYTES as JSON. */
function checkArgsSize(args: Readonly<Record<string, unknown>>): void {
  let bytes = argsBytes.get(args);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(args) ?? '', 'utf8');
    argsBytes.set(args, bytes);
  }
  if (bytes > MAX_ARGS_BYTES)
    throw new Error(
      `the arguments are ${bytes} bytes as JSON, over the ${MAX_ARGS_BYTES} an expression that reads args evaluates`,
    );
}

function reads(ast: unknown, variable: string): boolean {
  let found = false;
  walk(ast, (node) => {
    if (node.op === 'id' && node.args === variable) found = true;
  });
  return found;
}

/**
 * The arguments as CEL values of their declared types: integers become BigInt (CEL's int). A value
 * of another type is passed as it is, and evaluation then fails, which refuses the call.
 */
function toCel(args: Readonly<Record<string, unknown>>, types: ArgTypes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const type = Object.hasOwn(types, name) ? types[name] : undefined;
    Object.defineProperty(out, name, { value: celValue(value, type), enumerable: true });
  }
  return out;
}

function celValue(value: unknown, type: string | undefined): unknown {
  if (type === 'int') return Number.isSafeInteger(value) ? BigInt(value as number) : value;
  if (type === 'list<int>' && Array.isArray(value))
    return value.map((v) => (Number.isSafeInteger(v) ? BigInt(v as number) : v));
  return value;
}
