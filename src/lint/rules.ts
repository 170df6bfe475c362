/**
 * The lint rules: what makes a server hard for a model to use well. Each rule has a code, a level
 * and a doc entry in docs/lint.md; an entry silences a rule for itself with
 * `lint: { ignore: { CODE: "the reason" } }`. Rules read the compiled `tools/list` descriptors (what
 * a model really sees) and, for what a descriptor does not show (which inputs a statement uses,
 * whether the user confirms), the entry as written.
 */
import type { ToolDescriptor } from '../catalog/types.js';
import type { EntryConfig, ManifestPath } from '../manifest/types.js';
import { modelEntry } from './estimate.js';

export type LintLevel = 'error' | 'warning';

export const RULES = {
  LINT_DESCRIPTION_MISSING: 'error',
  LINT_DESCRIPTION_SHORT: 'warning',
  LINT_INPUT_UNDESCRIBED: 'warning',
  LINT_INPUT_UNUSED: 'warning',
  LINT_NAMES_SIMILAR: 'warning',
  LINT_WRITE_UNCONFIRMED: 'error',
  LINT_ANNOTATIONS_MISSING: 'warning',
  LINT_TOOL_TOKENS: 'warning',
  LINT_CATALOG_TOKENS: 'warning',
  LINT_MASK_BYPASSABLE: 'warning',
} as const satisfies Record<string, LintLevel>;

export type LintCode = keyof typeof RULES;

/** Above this many tokens one tool's `tools/list` entry is reported. */
export const TOOL_TOKEN_LIMIT = 1000;

/**
 * Above this many tokens a whole `tools/list` is reported, with search mode as the way out: a tenth
 * of a 200k window, paid on every turn before the conversation says anything.
 */
export const CATALOG_TOKEN_LIMIT = 20_000;

/** How lint counts tokens: a real tokenizer when one is installed (tokenizers.ts), else the estimate. */
export interface TokenCounter {
  /** `estimate`, or the tokenizer's name (`o200k_base (gpt-tokenizer)`). */
  readonly name: string;
  count(value: unknown): number;
}

export type LintSection = 'tools' | 'resources' | 'prompts' | 'server';

export interface RawFinding {
  readonly code: LintCode;
  readonly section: LintSection;
  readonly entry: string;
  /** Where in the manifest, from the root. */
  readonly path: ManifestPath;
  readonly message: string;
  readonly hint: string;
}

/** One tool as lint sees it: the entry written in the manifest and what tools/list sends. */
export interface LintTool {
  readonly name: string;
  readonly config: EntryConfig;
  readonly descriptor: ToolDescriptor;
}

export interface LintSubject {
  readonly tokens: TokenCounter;
  readonly tools: readonly LintTool[];
  readonly resources: Readonly<Record<string, EntryConfig>>;
  readonly prompts: Readonly<Record<string, EntryConfig>>;
  /** `server.policies`: what an entry's `policy:` names, and what applies to every entry. */
  readonly policies?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

type Config = Readonly<Record<string, unknown>>;

export function runRules(subject: LintSubject): RawFinding[] {
  const out: RawFinding[] = [];
  for (const tool of subject.tools) {
    toolRules(tool, subject.tokens, out);
    bypassableMask(tool, subject.policies ?? {}, out);
  }
  similarNames(subject.tools, out);
  for (const [name, config] of Object.entries(subject.resources)) {
    describedEntry('resources', name, config.description, out);
  }
  for (const [name, config] of Object.entries(subject.prompts)) promptRules(name, config, out);
  return out;
}

function toolRules(tool: LintTool, counter: TokenCounter, out: RawFinding[]): void {
  const { name, config, descriptor } = tool;
  const at = ['tools', name];
  describedEntry('tools', name, descriptor.description, out);

  const properties = (descriptor.inputSchema.properties ?? {}) as Record<string, Config>;
  for (const [input, schema] of Object.entries(properties)) {
    if (typeof schema.description === 'string' && schema.description.trim()) continue;
    out.push({
      code: 'LINT_INPUT_UNDESCRIBED',
      section: 'tools',
      entry: name,
      path: [...at, 'input', input],
      message: `input "${input}" has no description`,
      hint: 'add description: what the value means, its unit or format, and an example',
    });
  }

  for (const input of unusedInputs(config)) {
    out.push({
      code: 'LINT_INPUT_UNUSED',
      section: 'tools',
      entry: name,
      path: [...at, 'input', input],
      message: `input "${input}" is declared but nothing in the tool uses it`,
      hint: `remove it, or use it ({{${input}}}, :${input} or {${input}} where the kind expects it)`,
    });
  }

  const effect = deriveEffect(config);
  const hints = descriptor.annotations ?? {};
  const asksUser = config.confirm !== undefined || config.ask !== undefined;
  const writes = effect.readOnly === false || hints.destructiveHint === true;
  if (writes && hints.readOnlyHint !== true && !asksUser && hints.destructiveHint === undefined) {
    out.push({
      code: 'LINT_WRITE_UNCONFIRMED',
      section: 'tools',
      entry: name,
      path: at,
      message: `it changes data (${effect.why ?? 'declared destructive'}) but neither asks the user nor says whether it destroys anything`,
      hint: `add confirm: "…?" so the user approves each call, or ${destructiveHint(effect)} so the client knows`,
    });
  } else if (
    hints.readOnlyHint === undefined &&
    hints.destructiveHint === undefined &&
    effect.readOnly !== undefined
  ) {
    const suggested =
      effect.readOnly === true ? 'annotations: { readOnlyHint: true }' : destructiveHint(effect);
    out.push({
      code: 'LINT_ANNOTATIONS_MISSING',
      section: 'tools',
      entry: name,
      path: [...at, 'annotations'],
      message: `no readOnlyHint or destructiveHint, though ${effect.why} shows it ${effect.readOnly ? 'only reads' : 'writes'}`,
      hint: `add ${suggested}`,
    });
  }

  // A view's `_meta` is for the host, not the model.
  const tokens = counter.count(modelEntry(descriptor as unknown as Record<string, unknown>) ?? descriptor);
  if (tokens > TOOL_TOKEN_LIMIT) {
    out.push({
      code: 'LINT_TOOL_TOKENS',
      section: 'tools',
      entry: name,
      path: [...at, 'description'],
      message: `its tools/list entry is ${tokenFigure(tokens, counter)} (over ${TOOL_TOKEN_LIMIT}), sent to the model every turn`,
      hint: 'shorten the description, move reference text into a resource, trim enums and schemas',
    });
  }
}

/**
 * Masking by column or path on a `sql-query` tool: the model writes the SQL, so it names the columns
 * (`SELECT ssn AS x`) and the mask misses them. Read from the policies that apply to the tool: the
 * server's `appliesTo: all` ones, and what its own `policy:` names or holds.
 */
function bypassableMask(
  tool: LintTool,
  declared: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  out: RawFinding[],
): void {
  if (tool.config.kind !== 'sql-query') return;
  const field = tool.config.policy;
  const items: unknown[] = field === undefined ? [] : Array.isArray(field) ? field : [field];
  const applying = [
    ...Object.entries(declared).filter(([, p]) => p.appliesTo === 'all'),
    ...items.flatMap((item, i): [string, unknown][] =>
      typeof item === 'string'
        ? Object.hasOwn(declared, item) && declared[item]?.appliesTo !== 'all'
          ? [[item, declared[item]]]
          : []
        : [[Array.isArray(field) ? `policy[${i}]` : 'policy', item]],
    ),
  ];
  const masking = applying.filter(([, p]) => masksByName(p)).map(([name]) => name);
  if (masking.length === 0) return;
  out.push({
    code: 'LINT_MASK_BYPASSABLE',
    section: 'tools',
    entry: tool.name,
    path: ['tools', tool.name, 'policy'],
    message: `${masking.join(', ')} masks by column or path, but the model writes this tool's SQL and can rename a column (SELECT ssn AS x)`,
    hint: 'use detect: […] (it reads every string), deny the tool to who may not see the column, or serve a fixed sql tool that selects only what may be seen',
  });
}

/** Whether a policy's output rules mask by `columns:` or by `mask:`/`drop:` paths. */
function masksByName(policy: unknown): boolean {
  const output = (policy as { output?: unknown } | undefined)?.output;
  if (!Array.isArray(output)) return false;
  return output.some((rule: unknown) => {
    const r = (rule ?? {}) as Record<string, unknown>;
    return [r.columns, r.mask, r.drop].some((list) => Array.isArray(list) && list.length > 0);
  });
}

/**
 * The whole tools/list over CATALOG_TOKEN_LIMIT, unless the manifest chose how it is disclosed
 * (`catalog: { mode }`, catalog/disclosure.ts): search mode lists a few meta-tools, and `full`
 * written out says the whole list is meant.
 */
export function catalogRules(
  total: number,
  tools: number,
  chosen: boolean,
  counter: TokenCounter,
): RawFinding[] {
  if (chosen || total <= CATALOG_TOKEN_LIMIT) return [];
  return [
    {
      code: 'LINT_CATALOG_TOKENS',
      section: 'server',
      entry: 'catalog',
      path: ['server'],
      message: `tools/list is ${tokenFigure(total, counter)} for ${tools} tools (over ${CATALOG_TOKEN_LIMIT}), sent to the model every turn`,
      hint: 'serve it in search mode: `server: { catalog: { mode: search, pin: [the few tools used most] } }` lists four meta-tools that search, describe and call the rest (docs/big-catalogs.md); or split it into toolsets',
    },
  ];
}

/** `about 1,234 tokens (estimated)` or `1,234 tokens (o200k_base (gpt-tokenizer))`. */
function tokenFigure(tokens: number, counter: TokenCounter): string {
  return counter.name === 'estimate'
    ? `about ${tokens} tokens (estimated)`
    : `${tokens} tokens (${counter.name})`;
}

function destructiveHint(effect: Effect): string {
  if (effect.destructive !== undefined) return `annotations: { destructiveHint: ${effect.destructive} }`;
  return 'annotations: { destructiveHint: true } if it can overwrite or remove data, { destructiveHint: false } if it only adds';
}

function promptRules(name: string, config: EntryConfig, out: RawFinding[]): void {
  describedEntry('prompts', name, config.description, out);
  const args = (config.arguments ?? {}) as Record<string, Config>;
  for (const [arg, spec] of Object.entries(args)) {
    // A claim-bound argument (fromClaim) is never shown to a client: it needs no description.
    if (spec !== null && typeof spec === 'object' && 'fromClaim' in spec) continue;
    if (!(typeof spec?.description === 'string' && spec.description.trim())) {
      out.push({
        code: 'LINT_INPUT_UNDESCRIBED',
        section: 'prompts',
        entry: name,
        path: ['prompts', name, 'arguments', arg],
        message: `argument "${arg}" has no description`,
        hint: 'add description: what the value means, with an example',
      });
    }
  }
  const used = usedText(config, ['arguments']);
  for (const arg of Object.keys(args)) {
    if (mentions(used, arg)) continue;
    out.push({
      code: 'LINT_INPUT_UNUSED',
      section: 'prompts',
      entry: name,
      path: ['prompts', name, 'arguments', arg],
      message: `argument "${arg}" is declared but no message uses it`,
      hint: `remove it, or use it in a message as {{${arg}}}`,
    });
  }
}

function describedEntry(section: LintSection, name: string, description: unknown, out: RawFinding[]) {
  const text = typeof description === 'string' ? description.trim() : '';
  if (!text) {
    out.push({
      code: 'LINT_DESCRIPTION_MISSING',
      section,
      entry: name,
      path: [section, name],
      message: 'no description: the model has only the name to decide when to use it',
      hint: 'add description: one or two sentences on what it does and when to use it',
    });
    return;
  }
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length < 2 || normalize(text) === normalize(name)) {
    out.push({
      code: 'LINT_DESCRIPTION_SHORT',
      section,
      entry: name,
      path: [section, name, 'description'],
      message: `the description "${text}" says no more than the name`,
      hint: 'say what it returns or changes, and when to use it rather than its neighbours',
    });
  }
}

/** Tool names a model may confuse: equal but for case, separators or a plural, or one edit apart. */
function similarNames(tools: readonly LintTool[], out: RawFinding[]): void {
  for (const [i, b] of tools.entries()) {
    const twin = tools.slice(0, i).find((a) => similar(a.name, b.name));
    if (!twin) continue;
    out.push({
      code: 'LINT_NAMES_SIMILAR',
      section: 'tools',
      entry: b.name,
      path: ['tools', b.name],
      message: `"${b.name}" is close to "${twin.name}": a model may call one for the other`,
      hint: 'rename one so the names say how they differ, or merge them',
    });
  }
}

function similar(a: string, b: string): boolean {
  const x = normalize(a).replace(/s$/, '');
  const y = normalize(b).replace(/s$/, '');
  if (x === y) return true;
  // One letter apart is a near-duplicate (find_order, find_ordr), unless the letter changes the
  // verb: get_user and set_user say how they differ.
  if (firstWord(a) !== firstWord(b)) return false;
  return Math.min(a.length, b.length) >= 5 && editDistance(a.toLowerCase(), b.toLowerCase()) <= 1;
}

function firstWord(name: string): string {
  return (name.split(/[^\p{L}\p{N}]|(?<=\p{Ll})(?=\p{Lu})/u)[0] ?? '').toLowerCase();
}

function normalize(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** Fields that describe a tool rather than do its work: a name there is not a use. */
const NOT_USES = ['kind', 'title', 'description', 'input', 'outputSchema', 'annotations', 'lint'];

/** Methods whose unused arguments an http tool sends as the query, or as a JSON body. */
const AUTO_QUERY = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
const AUTO_BODY = new Set(['POST', 'PUT', 'PATCH']);

function unusedInputs(config: EntryConfig): string[] {
  const inputs = Object.keys((config.input ?? {}) as Config);
  if (config.kind === 'http') {
    const method = String(config.method ?? 'GET').toUpperCase();
    if (config.query === undefined && AUTO_QUERY.has(method)) return [];
    if (config.body === undefined && AUTO_BODY.has(method)) return [];
  }
  const used = usedText(config, ['input']);
  return inputs.filter((input) => !mentions(used, input));
}

function usedText(config: EntryConfig, alsoSkip: readonly string[]): string {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  for (const [field, value] of Object.entries(config)) {
    if (!NOT_USES.includes(field) && !alsoSkip.includes(field)) walk(value);
  }
  return parts.join('\n');
}

function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}($|[^\\p{L}\\p{N}_])`, 'u').test(text);
}

/** What a tool does to its world, as far as its entry tells: read only, or which write. */
export interface Effect {
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  readonly why?: string;
}

const READ_SQL = new Set(['SELECT', 'WITH', 'PRAGMA', 'EXPLAIN', 'SHOW', 'VALUES', 'DESCRIBE']);
const ADDING_SQL = new Set(['INSERT', 'CREATE']);

export function deriveEffect(config: EntryConfig): Effect {
  if (config.kind === 'http') {
    const method = String(config.method ?? 'GET').toUpperCase();
    const why = `its method ${method}`;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return { readOnly: true, why };
    // PUT replaces and DELETE removes; a POST or PATCH may only add, the entry cannot tell.
    if (method === 'DELETE' || method === 'PUT') return { readOnly: false, destructive: true, why };
    return { readOnly: false, why };
  }
  if (config.kind === 'sql' && typeof config.sql === 'string') {
    const statement = config.sql
      .replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
      .trim()
      .split(/\s+/)[0]
      ?.toUpperCase()
      .replace(/[^A-Z]/g, '');
    if (!statement) return {};
    const why = `its ${statement} statement`;
    if (READ_SQL.has(statement)) return { readOnly: true, why };
    return { readOnly: false, destructive: !ADDING_SQL.has(statement), why };
  }
  return {};
}
