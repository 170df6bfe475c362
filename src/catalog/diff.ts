/**
 * What a client can see change between two catalogs. Two readings of one comparison of descriptors
 * (what tools/list, resources/list, resources/templates/list and prompts/list show):
 *
 * - `diffCatalogs`: per category, counts for the list_changed notices a reload sends. A resource's
 *   `size` is left out: a file edited in place is a resources/updated for its subscribers, not a
 *   change of the list. A skill counts under resources by its whole entry (skills/list shows every
 *   file's digest, so an edit of one changes the list; the extension has no notice of its own).
 * - `compareContracts`: every change, named and classed for callers (`breaking`, `additive`, or
 *   `changed` for words only), for `mcp-run diff`, the reload log and `reload.refuseBreaking`.
 *   A contract comes from a catalog (`contractOf`) or from a running server's lists, so both sides
 *   of `mcp-run diff URL` go through the same code.
 */

import { type ChangeClass, canonical, compareSchemas } from './schema-diff.js';
import { skillEntry, skillResource } from './skills.js';
import type {
  Catalog,
  Disclosure,
  ListCategory,
  PromptDescriptor,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ToolAnnotations,
  ToolDescriptor,
} from './types.js';

export type { ChangeClass } from './schema-diff.js';

export interface CategoryChange {
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  /** Lists are served in manifest order, so a new order is a visible change too. */
  readonly reordered: boolean;
}

export type CatalogDiff = ReadonlyMap<ListCategory, CategoryChange>;

/** What a client sees of a server: its four lists, in list order, resources without their size. */
export interface Contract {
  readonly tools: readonly ToolDescriptor[];
  readonly resources: readonly ResourceDescriptor[];
  readonly templates: readonly ResourceTemplateDescriptor[];
  readonly prompts: readonly PromptDescriptor[];
}

export function contractOf(catalog: Catalog): Contract {
  return {
    tools: [...catalog.tools.values()].map((t) => t.descriptor),
    resources: [
      ...[...catalog.resources.values()].map((r) => visibleResource(r.descriptor)),
      ...[...catalog.skills.values()].map((skill) => visibleResource(skillResource(skill))),
    ],
    templates: catalog.templates.map((t) => t.descriptor),
    prompts: [...catalog.prompts.values()].map((p) => p.descriptor),
  };
}

/**
 * Writes values canonically (src/catalog/schema-diff.ts `canonical`), each distinct part once: a
 * part is named by a number the first time its text is seen, and referred to by it afterwards, and
 * an object already written (compiled descriptors share their schemas) is not walked again. Equal
 * contents get equal names whatever object holds them, so the names compare contents without
 * writing out the megabytes a large API repeats.
 */
class Parts {
  private readonly names = new Map<string, string>();
  private readonly written = new Map<object, string>();

  readonly name = (value: unknown): string => {
    if (typeof value !== 'object' || value === null) return canonical(value);
    const known = this.written.get(value);
    if (known !== undefined) return known;
    const text = canonical(value, this.name);
    let name = this.names.get(text);
    if (name === undefined) {
      name = `#${this.names.size}`;
      this.names.set(text, name);
    }
    this.written.set(value, name);
    return name;
  };
}

export function diffCatalogs(before: Catalog, after: Catalog): CatalogDiff {
  const diff = new Map<ListCategory, CategoryChange>();
  const compare = (
    category: ListCategory,
    a: ReadonlyMap<string, string>,
    b: ReadonlyMap<string, string>,
  ) => {
    let added = 0;
    let removed = 0;
    let changed = 0;
    for (const [key, fingerprint] of b) {
      const old = a.get(key);
      if (old === undefined) added++;
      else if (old !== fingerprint) changed++;
    }
    for (const key of a.keys()) if (!b.has(key)) removed++;
    const order = [...b.keys()];
    const reordered = added + removed === 0 && [...a.keys()].some((key, i) => key !== order[i]);
    if (added + removed + changed > 0 || reordered)
      diff.set(category, { added, removed, changed, reordered });
  };
  compare('tools', fingerprints(before.tools), fingerprints(after.tools));
  // Search mode turned on or off, or other tools pinned: the same tools, listed otherwise
  // (catalog/disclosure.ts), so a client must list them again.
  if (!diff.has('tools') && disclosureKey(before) !== disclosureKey(after))
    diff.set('tools', { added: 0, removed: 0, changed: 0, reordered: true });
  compare('prompts', fingerprints(before.prompts), fingerprints(after.prompts));
  compare('resources', resourceFingerprints(before), resourceFingerprints(after));
  return diff;
}

/** How a catalog and its toolsets disclose their tools (`catalog:`), as one comparable string. */
function disclosureKey(catalog: Catalog): string {
  const key = (d: Disclosure | undefined) => (d === undefined ? '' : `${d.mode}:${[...d.pinned].join(',')}`);
  const toolsets = [...(catalog.toolsets ?? [])].map(
    ([name, members]) => `${name}=${key(members.disclosure)}`,
  );
  return [key(catalog.disclosure), ...toolsets].join(';');
}

/** "+2 tools, -1 prompt, ~1 resource", or "no visible change". */
export function describeDiff(diff: CatalogDiff): string {
  const parts: string[] = [];
  for (const [category, { added, removed, changed, reordered }] of diff) {
    const noun = (n: number) => `${n} ${n === 1 ? category.slice(0, -1) : category}`;
    if (added) parts.push(`+${noun(added)}`);
    if (removed) parts.push(`-${noun(removed)}`);
    if (changed) parts.push(`~${noun(changed)}`);
    if (reordered) parts.push(`${category} reordered`);
  }
  return parts.length ? parts.join(', ') : 'no visible change';
}

function fingerprints(entries: ReadonlyMap<string, { readonly descriptor: object }>): Map<string, string> {
  return new Map([...entries].map(([key, entry]) => [key, JSON.stringify(entry.descriptor)]));
}

function visibleResource(descriptor: ResourceDescriptor): ResourceDescriptor {
  const { size: _size, ...visible } = descriptor;
  return visible;
}

function resourceFingerprints(catalog: Catalog): Map<string, string> {
  const map = new Map<string, string>();
  for (const [uri, resource] of catalog.resources) {
    map.set(`resource ${uri}`, JSON.stringify(visibleResource(resource.descriptor)));
  }
  for (const template of catalog.templates) {
    map.set(`template ${template.descriptor.uriTemplate}`, JSON.stringify(template.descriptor));
  }
  // A skill is its entry: a file added, removed or edited changes what skills/list says of it.
  for (const [name, skill] of catalog.skills) map.set(`skill ${name}`, JSON.stringify(skillEntry(skill)));
  return map;
}

// ——— The contract diff ———

export type ContractCategory = 'tool' | 'resource' | 'template' | 'prompt';

export interface ContractChange {
  readonly class: ChangeClass;
  readonly category: ContractCategory;
  /** The entry's name (a resource's URI, a template's uriTemplate); the new one for a rename. */
  readonly name: string;
  readonly change: 'added' | 'removed' | 'renamed' | 'changed';
  /** A rename: the old name. */
  readonly from?: string;
  /** What part changed: `input`, `output`, `annotations.readOnlyHint`, `description`, `arguments`… */
  readonly part?: string;
  /** The field inside an input or output schema, or a prompt argument. */
  readonly path?: string;
  /** One line for people: "tool `find_order` input `id` became required". */
  readonly message: string;
}

/** Every change from `before` to `after`, tools first, then resources, templates and prompts. */
export function compareContracts(before: Contract, after: Contract): ContractChange[] {
  // One naming for both sides: an entry that did not change has the same name on both.
  const same = new Parts().name;
  return [
    ...compareEntries('tool', before.tools, after.tools, (t) => t.name, toolKey, compareTools, same),
    ...compareEntries(
      'resource',
      before.resources,
      after.resources,
      (r) => r.uri,
      withoutKey('uri'),
      compareResources,
      same,
    ),
    ...compareEntries(
      'template',
      before.templates,
      after.templates,
      (t) => t.uriTemplate,
      withoutKey('uriTemplate'),
      compareResources,
      same,
    ),
    ...compareEntries(
      'prompt',
      before.prompts,
      after.prompts,
      (p) => p.name,
      promptKey,
      comparePrompts,
      same,
    ),
  ];
}

type Emit = (cls: ChangeClass, part: string, text: string, path?: string) => void;

/**
 * Entries by name: added, removed, or compared. A removed entry and an added one with the same
 * contract (`key`), unique on both sides, are a rename: breaking, as callers use the old name.
 */
function compareEntries<T>(
  category: ContractCategory,
  before: readonly T[],
  after: readonly T[],
  nameOf: (entry: T) => string,
  key: (entry: T) => string | undefined,
  compare: (a: T, b: T, emit: Emit) => void,
  same: (value: unknown) => string,
): ContractChange[] {
  const out: ContractChange[] = [];
  const noun = `${category} \`%\``;
  const subject = (name: string) => noun.replace('%', name);
  const old = new Map(before.map((e) => [nameOf(e), e]));
  const now = new Map(after.map((e) => [nameOf(e), e]));
  const removed = before.filter((e) => !now.has(nameOf(e)));
  const added = after.filter((e) => !old.has(nameOf(e)));
  const renamedFrom = new Map<string, string>();
  const count = (list: readonly T[]) => {
    const counts = new Map<string, number>();
    for (const e of list) {
      const k = key(e);
      if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return counts;
  };
  const [removedKeys, addedKeys] = [count(removed), count(added)];
  for (const gone of removed) {
    const k = key(gone);
    if (k === undefined || removedKeys.get(k) !== 1 || addedKeys.get(k) !== 1) continue;
    const twin = added.find((e) => key(e) === k) as T;
    renamedFrom.set(nameOf(twin), nameOf(gone));
  }
  const renamedOld = new Set(renamedFrom.values());
  for (const entry of after) {
    const name = nameOf(entry);
    const previous = old.get(name);
    const from = renamedFrom.get(name);
    if (from !== undefined) {
      out.push({
        class: 'breaking',
        category,
        name,
        change: 'renamed',
        from,
        message: `${subject(from)} renamed to \`${name}\``,
      });
      compare(
        old.get(from) ?? (before.find((e) => nameOf(e) === from) as T),
        entry,
        emitFor(out, category, name, subject(name)),
      );
    } else if (previous === undefined) {
      out.push({ class: 'additive', category, name, change: 'added', message: `${subject(name)} added` });
    } else if (same(previous) !== same(entry)) {
      compare(previous, entry, emitFor(out, category, name, subject(name)));
    }
  }
  for (const gone of removed) {
    const name = nameOf(gone);
    if (!renamedOld.has(name))
      out.push({ class: 'breaking', category, name, change: 'removed', message: `${subject(name)} removed` });
  }
  return out;
}

function emitFor(out: ContractChange[], category: ContractCategory, name: string, subject: string): Emit {
  return (cls, part, text, path) =>
    out.push({
      class: cls,
      category,
      name,
      change: 'changed',
      part,
      ...(path ? { path } : {}),
      message: `${subject} ${part}${path ? ` \`${path}\`` : ''} ${text}`,
    });
}

/** A tool's contract without its name and words: what a rename keeps. */
function toolKey(tool: ToolDescriptor): string | undefined {
  const { title: _t, ...annotations } = tool.annotations ?? {};
  const props = (tool.inputSchema as { properties?: object }).properties;
  // Two tools that take nothing are alike in everything but their words: not a rename.
  const trivial = props === undefined || Object.keys(props).length === 0;
  return canonical({
    input: tool.inputSchema,
    output: tool.outputSchema,
    annotations,
    execution: tool.execution,
    ...(trivial && { description: tool.description }),
  });
}

function promptKey(prompt: PromptDescriptor): string | undefined {
  return prompt.arguments?.length
    ? canonical(prompt.arguments)
    : canonical({ description: prompt.description });
}

const withoutKey =
  (field: string) =>
  (entry: object): string => {
    const { [field]: _own, ...rest } = entry as Record<string, unknown>;
    return canonical(rest);
  };

/** Each hint's meaning when absent, per the spec: a tool is assumed to write, destroy, repeat badly, reach out. */
const HINT_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const;
/** The value of each hint that is safer for callers: moving away from it breaks them. */
const HINT_SAFE = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

function compareTools(a: ToolDescriptor, b: ToolDescriptor, emit: Emit): void {
  words(a, b, emit);
  for (const f of compareSchemas(a.inputSchema, b.inputSchema, 'input'))
    emit(f.class, 'input', f.text, f.path);
  if (a.outputSchema !== undefined && b.outputSchema !== undefined) {
    for (const f of compareSchemas(a.outputSchema, b.outputSchema, 'output'))
      emit(f.class, 'output', f.text, f.path);
  } else if (a.outputSchema !== undefined) emit('breaking', 'output', 'schema removed');
  else if (b.outputSchema !== undefined) emit('additive', 'output', 'schema added');
  const [ha, hb] = [a.annotations ?? {}, b.annotations ?? {}];
  for (const hint of Object.keys(HINT_DEFAULTS) as (keyof typeof HINT_DEFAULTS)[]) {
    const [x, y] = [ha[hint] ?? HINT_DEFAULTS[hint], hb[hint] ?? HINT_DEFAULTS[hint]];
    if (x === y) continue;
    const safer = y === HINT_SAFE[hint];
    emit(safer ? 'additive' : 'breaking', `annotations.${hint}`, y ? 'gained' : 'lost');
  }
  if ((ha as ToolAnnotations).title !== (hb as ToolAnnotations).title)
    emit('changed', 'annotations.title', 'changed');
  const [ta, tb] = [a.execution?.taskSupport ?? 'forbidden', b.execution?.taskSupport ?? 'forbidden'];
  if (ta !== tb) {
    // Required refuses a client without tasks, forbidden one that calls it as a task; only a move
    // to optional leaves every caller's way of calling it working.
    emit(tb === 'optional' ? 'additive' : 'breaking', 'execution.taskSupport', `changed from ${ta} to ${tb}`);
  }
}

function compareResources(
  a: ResourceDescriptor | ResourceTemplateDescriptor,
  b: ResourceDescriptor | ResourceTemplateDescriptor,
  emit: Emit,
): void {
  words(a, b, emit);
  if (a.name !== b.name) emit('changed', 'name', `changed from \`${a.name}\` to \`${b.name}\``);
  if (a.mimeType !== b.mimeType)
    emit('breaking', 'mimeType', `changed from ${a.mimeType ?? 'none'} to ${b.mimeType ?? 'none'}`);
}

function comparePrompts(a: PromptDescriptor, b: PromptDescriptor, emit: Emit): void {
  words(a, b, emit);
  const before = new Map((a.arguments ?? []).map((arg) => [arg.name, arg]));
  const after = new Map((b.arguments ?? []).map((arg) => [arg.name, arg]));
  for (const [name, arg] of after) {
    const old = before.get(name);
    if (old === undefined) {
      emit(
        arg.required ? 'breaking' : 'additive',
        'argument',
        `added (${arg.required ? 'required' : 'optional'})`,
        name,
      );
    } else {
      if (!old.required && arg.required) emit('breaking', 'argument', 'became required', name);
      if (old.required && !arg.required) emit('additive', 'argument', 'became optional', name);
      if (old.description !== arg.description || old.title !== arg.title)
        emit('changed', 'argument', 'description changed', name);
    }
  }
  for (const name of before.keys()) if (!after.has(name)) emit('breaking', 'argument', 'removed', name);
}

function words(
  a: { title?: string; description?: string },
  b: { title?: string; description?: string },
  emit: Emit,
) {
  if (a.title !== b.title) emit('changed', 'title', 'changed');
  if (a.description !== b.description) emit('changed', 'description', 'changed');
}

/**
 * One line: "2 added, 1 breaking: tool `find_order` input `id` became required" (at most three
 * breaking changes named), or "no contract change".
 */
export function summarizeContract(changes: readonly ContractChange[]): string {
  if (changes.length === 0) return 'no contract change';
  const named = (change: ContractChange['change']) =>
    new Set(changes.filter((c) => c.change === change).map((c) => `${c.category} ${c.name}`));
  // A renamed entry whose words changed too is counted once, as renamed.
  const renamed = named('renamed');
  const entries = (change: ContractChange['change']) =>
    [...named(change)].filter((key) => change === 'renamed' || !renamed.has(key)).length;
  const parts: string[] = [];
  for (const change of ['added', 'removed', 'renamed', 'changed'] as const) {
    const n = entries(change);
    if (n > 0) parts.push(`${n} ${change}`);
  }
  const breaking = changes.filter((c) => c.class === 'breaking');
  if (breaking.length === 0) return parts.join(', ');
  const reasons = breaking.slice(0, 3).map((c) => c.message);
  if (breaking.length > 3) reasons.push(`and ${breaking.length - 3} more`);
  return `${parts.join(', ')}, ${breaking.length} breaking: ${reasons.join('; ')}`;
}
