/**
 * Policies where every read, get and completion passes: the catalog's resource, template and prompt
 * wrappers (the tool wrapper, tool.ts, has them as its policy and shape stages), the toolset views
 * that bind them to a toolset, and the list filter that leaves out what a caller's claims refuse.
 *
 * A wrapped entry remembers what it wraps and under which policy (`GOVERNED`), so a toolset's view
 * can wrap the same inner entry again under the toolset's policies instead of stacking a second
 * check on the first. A mirrored tool (mirror.ts) is built from the inner entry and carries the
 * entry's policy itself: each path is checked once.
 */
import type { EntryPolicy } from '../governance/policy/policy.js';
import { shapeContents, shapePrompt } from '../governance/policy/shape.js';
import type { CallerIdentity } from '../kinds/contract/types.js';
import { WrappedTool } from './tool.js';
import type {
  Catalog,
  CatalogPrompt,
  CatalogResource,
  CatalogTemplate,
  CatalogTool,
  ListCategory,
} from './types.js';

type Governable = CatalogResource | CatalogTemplate | CatalogPrompt;

interface Governed<T> {
  readonly inner: T;
  readonly policy: EntryPolicy;
  readonly wrap: (inner: T, policy: EntryPolicy) => T;
}

const GOVERNED = new WeakMap<object, Governed<Governable>>();

/** Records `inner` under `policy` without a wrapper (no policy applies yet; a toolset's may). */
export function remember<T extends Governable>(
  inner: T,
  policy: EntryPolicy,
  wrap: (inner: T, policy: EntryPolicy) => T,
): T {
  const served = policy.empty ? inner : wrap(inner, policy);
  GOVERNED.set(served, { inner, policy, wrap } as unknown as Governed<Governable>);
  return served;
}

export function governResource(resource: CatalogResource, policy: EntryPolicy): CatalogResource {
  return remember(resource, policy, (inner, p) => ({
    ...inner,
    callerBound: true,
    async read(signal, identity) {
      const input = p.input(identity?.claims, {});
      p.decide(input);
      const contents = await inner.read(signal, identity);
      const masking = p.masks ? p.masking(input) : undefined;
      return masking === undefined ? contents : shapeContents(contents, masking);
    },
  }));
}

export function governTemplate(template: CatalogTemplate, policy: EntryPolicy): CatalogTemplate {
  return remember(template, policy, (inner, p) => ({
    ...inner,
    callerBound: true,
    match: (uri) => inner.match(uri),
    async read(uri, vars, signal, identity) {
      const input = p.input(identity?.claims, vars);
      p.decide(input);
      const contents = await inner.read(uri, vars, signal, identity);
      const masking = p.masks ? p.masking(input) : undefined;
      return masking === undefined ? contents : shapeContents(contents, masking);
    },
    async complete(variable, prefix, context, identity) {
      // Completing a template is using it: refused like a read, on the values given so far.
      p.decide(p.input(identity?.claims, context));
      return inner.complete(variable, prefix, context, identity);
    },
  }));
}

export function governPrompt(prompt: CatalogPrompt, policy: EntryPolicy): CatalogPrompt {
  return remember(prompt, policy, (inner, p) => ({
    ...inner,
    async get(args, signal, caller) {
      const input = p.input(caller?.identity?.claims, args);
      p.decide(input);
      const result = await inner.get(args, signal, caller);
      const masking = p.masks ? p.masking(input) : undefined;
      return masking === undefined ? result : shapePrompt(result, masking);
    },
    async complete(argument, prefix, context, identity) {
      p.decide(p.input(identity?.claims, context));
      return inner.complete(argument, prefix, context, identity);
    },
  }));
}

/** The policy an entry is served under, if the manifest has policies. */
export function policyOf(entry: CatalogTool | Governable): EntryPolicy | undefined {
  if (entry instanceof WrappedTool) return entry.policies;
  return GOVERNED.get(entry)?.policy;
}

/**
 * `entry` as served through `toolset`: under its own policies plus the toolset's. Unchanged when the
 * catalog has no policies, or neither the entry nor the toolset has any that would change.
 */
export function inToolset<T extends CatalogTool | Governable>(
  entry: T,
  toolset: string,
  catalog: Catalog,
): T {
  const added = catalog.policies?.toolsets.get(toolset);
  if (added === undefined) return entry;
  if (entry instanceof WrappedTool) {
    const policy = entry.policies;
    return policy === undefined
      ? entry
      : (entry.withPolicy(policy.inToolset(toolset, added)) as unknown as T);
  }
  const governed = GOVERNED.get(entry as Governable);
  if (governed === undefined) return entry;
  const policy = governed.policy.inToolset(toolset, added);
  return remember(governed.inner, policy, governed.wrap) as T;
}

/** A list's kind, as the protocol's pager names them. */
type ListKind = ListCategory | 'resourceTemplates';

/**
 * Whether this caller's claims alone refuse the entry a list would show; undefined when the catalog
 * has no policy that filters lists (then every caller sees the same pages, cached).
 */
export function hiddenFrom(
  catalog: Catalog,
  identity: CallerIdentity | undefined,
): ((kind: ListKind, key: string) => boolean) | undefined {
  if (catalog.policies?.filtersLists !== true) return undefined;
  const claims = identity?.claims;
  const hides = (entry: CatalogTool | Governable | undefined) => {
    const policy = entry === undefined ? undefined : policyOf(entry);
    return policy?.filtersLists === true && policy.hidden(claims);
  };
  return (kind, key) => {
    // In search mode (disclosure.ts) the listed tools are meta-tools: what they find is `callable`.
    if (kind === 'tools') return hides(catalog.callable?.get(key) ?? catalog.tools.get(key));
    if (kind === 'prompts') return hides(catalog.prompts.get(key));
    if (kind === 'resourceTemplates')
      return hides(catalog.templates.find((t) => t.descriptor.uriTemplate === key));
    const resource = catalog.resources.get(key);
    if (resource !== undefined) return hides(resource);
    // A live set's resource (a table) is read through the template it matches.
    return hides(catalog.templates.find((t) => t.match(key) !== undefined));
  };
}
