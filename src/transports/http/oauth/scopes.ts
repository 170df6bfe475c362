/**
 * Required scopes (the manifest's `server.auth.scopes`): `required` for every request, and per tool,
 * resource (by URI) and prompt (by name). A call names its target, so its needed scopes are known
 * before dispatch: the transport answers 403 `insufficient_scope` with all of them in one challenge.
 * Lists are filtered in the core through the route's Access: a caller sees only what it may use.
 */
import { META_TOOLS } from '../../../catalog/disclosure.js';
import type { MirrorTarget } from '../../../catalog/types.js';
import type { Access } from '../../../protocol/server.js';
import type { Principal } from './verifier.js';

export interface ScopePolicy {
  /** Needed for every request. */
  readonly required?: readonly string[];
  /** Tool name → scopes needed to see and call it. */
  readonly tools?: Readonly<Record<string, readonly string[]>>;
  /** Resource URI (or a template's uriTemplate) → scopes needed to see and read it. */
  readonly resources?: Readonly<Record<string, readonly string[]>>;
  /** Prompt name → scopes needed to see and get it. */
  readonly prompts?: Readonly<Record<string, readonly string[]>>;
}

const TARGETS: Record<
  string,
  { readonly table: 'tools' | 'resources' | 'prompts'; readonly param: 'name' | 'uri' }
> = {
  'tools/call': { table: 'tools', param: 'name' },
  'prompts/get': { table: 'prompts', param: 'name' },
  'resources/read': { table: 'resources', param: 'uri' },
  'resources/subscribe': { table: 'resources', param: 'uri' },
  'resources/directory/read': { table: 'resources', param: 'uri' },
  'skills/get': { table: 'resources', param: 'uri' },
};

/** Every scope the message (or each message of a batch) needs, `required` included, sorted. */
export function scopesNeeded(message: unknown, policy: ScopePolicy): string[] {
  const needed = new Set(policy.required ?? []);
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null) continue;
    const { method, params } = item as { method?: unknown; params?: unknown };
    if (typeof method !== 'string' || typeof params !== 'object' || params === null) continue;
    const p = params as Record<string, unknown>;
    let table: 'tools' | 'resources' | 'prompts' | undefined;
    let key: unknown;
    const target = TARGETS[method];
    if (target !== undefined) {
      table = target.table;
      key = p[target.param];
    } else if (method === 'completion/complete' && typeof p.ref === 'object' && p.ref !== null) {
      // Completing a prompt's or a resource template's arguments is using it.
      const ref = p.ref as { type?: unknown; name?: unknown; uri?: unknown };
      if (ref.type === 'ref/prompt') [table, key] = ['prompts', ref.name];
      else if (ref.type === 'ref/resource') [table, key] = ['resources', ref.uri];
    }
    if (table === undefined || typeof key !== 'string') continue;
    for (const scope of scopesOf(policy, table, key)) needed.add(scope);
    // Search mode's call_tool (catalog/disclosure.ts) is a use of the tool it names.
    const forwarded = (p.arguments as { name?: unknown } | undefined)?.name;
    if (method === 'tools/call' && key === META_TOOLS.call && typeof forwarded === 'string')
      for (const scope of scopesOf(policy, 'tools', forwarded)) needed.add(scope);
  }
  return [...needed].sort();
}

/**
 * The scopes an entry needs. A resource URI also needs those of every template in the policy that
 * it matches (a read of `db://tables/orders` is a use of `db://tables/{name}`).
 */
function scopesOf(
  policy: ScopePolicy,
  table: 'tools' | 'resources' | 'prompts',
  key: string,
): readonly string[] {
  const entries = policy[table];
  if (entries === undefined) return [];
  const direct = entries[key] ?? [];
  if (table !== 'resources') return direct;
  const all = new Set([...direct, ...skillScopes(entries, key)]);
  for (const [template, scopes] of Object.entries(entries))
    if (template.includes('{') && templateRegex(template).test(key)) for (const s of scopes) all.add(s);
  return [...all];
}

/**
 * A skill's scopes: those of its root, `skill://<name>`, apply to every URI under it (its files,
 * its folders, its SKILL.md), so one policy key covers the skill whatever the method reads.
 */
function skillScopes(entries: Readonly<Record<string, readonly string[]>>, uri: string): readonly string[] {
  if (!uri.startsWith('skill://')) return [];
  const rest = uri.slice('skill://'.length);
  const slash = rest.indexOf('/');
  const root = `skill://${slash < 0 ? rest : rest.slice(0, slash)}`;
  return root === uri ? [] : (entries[root] ?? []);
}

const templates = new Map<string, RegExp>();

/** RFC 6570 as a matcher: `{var}` is one path segment, any operator form (`{+var}`, `{/var}`, …) anything. */
function templateRegex(template: string): RegExp {
  let regex = templates.get(template);
  if (regex === undefined) {
    const source = template
      .split(/(\{[^}]*\})/)
      .map((part) => {
        if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        return /^\{[A-Za-z0-9_.,%]+\}$/.test(part) ? '[^/]*' : '.*';
      })
      .join('');
    regex = new RegExp(`^${source}$`);
    templates.set(template, regex);
  }
  return regex;
}

/**
 * The policy with the mirrored tools' scopes added (catalog/mirror.ts): a mirror needs what the
 * resources or the prompt it serves need (a resource's URI, as in scopesOf, also those of the
 * templates it matches; a template, also those of every policy URI it matches, since the mirror may
 * read any of them), plus its own entry under `tools`, if any.
 */
export function withMirrorScopes(
  policy: ScopePolicy,
  mirrors: ReadonlyMap<string, MirrorTarget>,
): ScopePolicy {
  const tools: Record<string, readonly string[]> = { ...policy.tools };
  let added = false;
  for (const [name, target] of mirrors) {
    const scopes = new Set(Object.hasOwn(tools, name) ? tools[name] : []);
    for (const key of target.resources ?? []) {
      for (const s of scopesOf(policy, 'resources', key)) scopes.add(s);
      // A template mirror reads any URI the template matches, so it needs the scopes of every
      // policy URI under it: at least what resources/read of the URI it resolves would need.
      if (key.includes('{'))
        for (const [uri, needed] of Object.entries(policy.resources ?? {}))
          if (templateRegex(key).test(uri)) for (const s of needed) scopes.add(s);
    }
    if (target.prompt !== undefined)
      for (const s of scopesOf(policy, 'prompts', target.prompt)) scopes.add(s);
    if (scopes.size === 0) continue;
    tools[name] = [...scopes].sort();
    added = true;
  }
  return added ? { ...policy, tools } : policy;
}

/** The scopes of `needed` the principal lacks; none for a static credential (it has every right). */
export function missingScopes(principal: Principal | undefined, needed: readonly string[]): string[] {
  const granted = principal?.scopes;
  if (granted === undefined) return [];
  return needed.filter((scope) => !granted.has(scope));
}

/** What the principal may see in lists; undefined means everything. */
export function accessOf(principal: Principal | undefined, policy: ScopePolicy): Access | undefined {
  const granted = principal?.scopes;
  if (granted === undefined) return undefined;
  const has = (scopes: readonly string[] | undefined): boolean => (scopes ?? []).every((s) => granted.has(s));
  return {
    allows(kind, key) {
      if (kind === 'tools') return has(policy.tools?.[key]);
      if (kind === 'prompts') return has(policy.prompts?.[key]);
      return has(policy.resources?.[key]) && has(skillScopes(policy.resources ?? {}, key));
    },
  };
}
