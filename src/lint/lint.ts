/**
 * `lint` over one loaded manifest and its compiled catalog: runs the rules, drops what an entry
 * silences (`lint: { ignore: { CODE: reason } }`), places each finding at file:line:col and adds the
 * token cost of the server's `tools/list` as served (search mode: its meta-tools), counted by a real
 * tokenizer when the CLI found one installed (tokenizers.ts), else estimated (estimate.ts).
 */
import type { Catalog, ToolDescriptor } from '../catalog/types.js';
import { parseYaml } from '../manifest/parse.js';
import type { EntryConfig, LoadedManifest } from '../manifest/types.js';
import { estimateJsonTokens, modelEntry } from './estimate.js';
import {
  catalogRules,
  type LintCode,
  type LintLevel,
  type LintSection,
  RULES,
  runRules,
  type TokenCounter,
} from './rules.js';
import type { Tokenizer } from './tokenizers.js';

export interface LintFinding {
  readonly code: LintCode;
  readonly level: LintLevel;
  readonly section: LintSection;
  readonly entry: string;
  /** Dotted path into the manifest, e.g. `tools.add_note.input.title`. */
  readonly path: string;
  readonly line?: number;
  readonly col?: number;
  readonly message: string;
  readonly hint: string;
}

export interface Suppressed {
  readonly code: LintCode;
  readonly section: LintSection;
  readonly entry: string;
  readonly reason: string;
}

export interface TokenCost {
  /** What counted them: `estimate`, or a real tokenizer's name (tokenizers.ts). */
  readonly tokenizer: string;
  /** Tokens of the whole `tools/list` result as served, `{"tools":[…]}` as compact JSON. */
  readonly total: number;
  /** The tools listed: fewer than `tools` in search mode (catalog/disclosure.ts). */
  readonly listed: number;
  /** Whether the catalog is served in search mode (its meta-tools are what `total` counts). */
  readonly searchMode: boolean;
  /** Each tool's entry (as describe_tool gives it in search mode), largest first. */
  readonly tools: readonly { readonly name: string; readonly tokens: number }[];
}

export interface LintReport {
  readonly file: string;
  readonly findings: readonly LintFinding[];
  readonly suppressed: readonly Suppressed[];
  readonly tokens: TokenCost;
  readonly errors: number;
  readonly warnings: number;
}

/**
 * `only`: lint just these resource and prompt entries (`lint --toolset`: a toolset's view, whose
 * catalog already holds only its tools). Absent: every entry of the manifest.
 */
export interface LintScope {
  readonly resources: ReadonlySet<string>;
  readonly prompts: ReadonlySet<string>;
}

/** How the catalog is served: what tools/list lists (search mode: its meta-tools), and the counter. */
export interface LintServing {
  readonly listed?: readonly ToolDescriptor[];
  /** `catalog: { mode }` as the manifest says it for this view; absent: not said (in full). */
  readonly disclosure?: 'full' | 'search';
  /** A real tokenizer; absent: the estimate (estimate.ts). */
  readonly tokenizer?: Tokenizer;
}

export function lintCatalog(
  manifest: LoadedManifest,
  catalog: Catalog,
  only?: LintScope,
  serving: LintServing = {},
): LintReport {
  const { tokenizer } = serving;
  const counter: TokenCounter = tokenizer
    ? { name: tokenizer.name, count: (value) => tokenizer.count(JSON.stringify(value)) }
    : { name: 'estimate', count: estimateJsonTokens };
  const sections = manifest.data;
  const keep = (names: ReadonlySet<string> | undefined) => (entry: [string, unknown]) =>
    names === undefined || names.has(entry[0]);
  const descriptors = [...catalog.tools.values()].map((t) => t.descriptor);
  const tools = descriptors.flatMap((descriptor) => {
    const config = sections.tools?.[descriptor.name];
    return config ? [{ name: descriptor.name, config, descriptor }] : [];
  });
  // A resource kind may describe what it serves itself (sql-schema does); its descriptor carries the
  // entry's name, so a description there counts as the entry's.
  const served = new Map<string, string | undefined>();
  for (const { descriptor } of [...catalog.resources.values(), ...catalog.templates]) {
    if (!served.get(descriptor.name)) served.set(descriptor.name, descriptor.description);
  }
  const resources = Object.fromEntries(
    Object.entries(sections.resources ?? {})
      .filter(keep(only?.resources))
      .map(([name, config]) => [name, { ...config, description: config.description ?? served.get(name) }]),
  );
  const prompts = Object.fromEntries(Object.entries(sections.prompts ?? {}).filter(keep(only?.prompts)));
  // What the model reads: a host keeps a view's `_meta` and the tools only views call to itself.
  const modelRead = (list: readonly (typeof descriptors)[number][]) =>
    list.flatMap((d) => {
      const read = modelEntry(d as unknown as Record<string, unknown>);
      return read === undefined ? [] : [read as typeof d];
    });
  const seen = modelRead(descriptors);
  const listed = serving.listed === undefined ? seen : modelRead(serving.listed);
  const total = counter.count({ tools: listed });
  const searchMode = serving.disclosure === 'search';
  const raw = [
    ...runRules({ tokens: counter, tools, resources, prompts, policies: sections.server?.policies ?? {} }),
    ...catalogRules(total, descriptors.length, serving.disclosure !== undefined, counter),
  ];

  const source = parseYaml(manifest.text).source;
  const findings: LintFinding[] = [];
  const suppressed: Suppressed[] = [];
  for (const f of raw) {
    const reason = f.section === 'server' ? undefined : ignored(sections[f.section]?.[f.entry], f.code);
    if (reason !== undefined) {
      suppressed.push({ code: f.code, section: f.section, entry: f.entry, reason });
      continue;
    }
    const pos = source.position(f.path, 'key');
    findings.push({
      code: f.code,
      level: RULES[f.code],
      section: f.section,
      entry: f.entry,
      path: f.path.join('.'),
      ...(pos ? { line: pos.line, col: pos.col } : {}),
      message: f.message,
      hint: f.hint,
    });
  }
  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));

  const costs = seen
    .map((d) => ({ name: d.name, tokens: counter.count(d) }))
    .sort((a, b) => b.tokens - a.tokens);
  const errors = findings.filter((f) => f.level === 'error').length;
  return {
    file: manifest.file,
    findings,
    suppressed,
    tokens: { tokenizer: counter.name, total, listed: listed.length, searchMode, tools: costs },
    errors,
    warnings: findings.length - errors,
  };
}

/** The reason an entry gives for silencing `code`, if it does. */
function ignored(config: EntryConfig | undefined, code: LintCode): string | undefined {
  const lint = config?.lint as { ignore?: Record<string, unknown> } | undefined;
  const reason = lint?.ignore?.[code];
  return typeof reason === 'string' ? reason : undefined;
}
