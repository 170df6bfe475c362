/**
 * `lint` over one loaded manifest and its compiled catalog: runs the rules, drops what an entry
 * silences (`lint: { ignore: { CODE: reason } }`), places each finding at file:line:col and adds the
 * estimated token cost of the server's `tools/list`.
 */
import type { Catalog } from '../catalog/types.js';
import { parseYaml } from '../manifest/parse.js';
import type { EntryConfig, LoadedManifest } from '../manifest/types.js';
import { estimateJsonTokens, modelEntry } from './estimate.js';
import { type LintCode, type LintLevel, type LintSection, RULES, runRules } from './rules.js';

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
  /** Estimated tokens of the whole `tools/list` result, `{"tools":[…]}` as compact JSON. */
  readonly total: number;
  /** Each tool's entry, largest first. */
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

export function lintCatalog(manifest: LoadedManifest, catalog: Catalog, only?: LintScope): LintReport {
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
  const raw = runRules({ tools, resources, prompts });

  const source = parseYaml(manifest.text).source;
  const findings: LintFinding[] = [];
  const suppressed: Suppressed[] = [];
  for (const f of raw) {
    const reason = ignored(sections[f.section]?.[f.entry], f.code);
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

  // What the model reads: a host keeps a view's `_meta` and the tools only views call to itself.
  const seen = descriptors.flatMap((d) => {
    const read = modelEntry(d as unknown as Record<string, unknown>);
    return read === undefined ? [] : [read as typeof d];
  });
  const costs = seen
    .map((d) => ({ name: d.name, tokens: estimateJsonTokens(d) }))
    .sort((a, b) => b.tokens - a.tokens);
  const errors = findings.filter((f) => f.level === 'error').length;
  return {
    file: manifest.file,
    findings,
    suppressed,
    tokens: { total: estimateJsonTokens({ tools: seen }), tools: costs },
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
