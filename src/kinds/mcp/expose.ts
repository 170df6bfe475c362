/**
 * `expose:` on an `mcp` source: the upstream's listed entries turned into entries of the catalog
 * (OpenedSource.entries), each a `kind: mcp` entry naming its upstream entry, as if the manifest
 * declared it. Filters and renames decide what exists: a name left out or renamed away is unknown
 * to every list, call, read and get, because no entry of that name is ever compiled.
 *
 * Upstream names are data: a name is served only when it (with its prefix) is a valid manifest
 * name; otherwise it is left out with a warning. Nothing of the upstream's becomes manifest syntax.
 */
import { escapeControls } from '../../util/escape-controls.js';
import type { ContributedEntry, EntryPath, KindContext, UpstreamListing } from '../contract/kinds.js';

/** The manifest's name rules (manifest/envelope.ts NAME_PATTERNS), for the sections an upstream fills. */
/** A valid resource entry name made from an upstream's display name: other characters `_`, at most 64. */
function resourceKey(wanted: string): string {
  return (wanted.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'resource').slice(0, 64);
}

const NAME_RULES = {
  tools: /^[A-Za-z0-9_.-]{1,128}$/,
  resources: /^[A-Za-z0-9_.-]{1,64}$/,
  prompts: /^[A-Za-z0-9_.-]{1,128}$/,
};

export interface ExposeOverride {
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly pin?: Readonly<Record<string, unknown>>;
}

export interface ExposeSection {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  readonly prefix?: string;
  readonly overrides?: Readonly<Record<string, ExposeOverride>>;
}

export interface ExposeConfig {
  readonly tools?: ExposeSection;
  readonly resources?: ExposeSection;
  readonly prompts?: ExposeSection;
}

/** `*` any run of characters, `?` one; everything else literal. */
export function globMatcher(pattern: string): (name: string) => boolean {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  const re = new RegExp(`^${body}$`, 's');
  return (name) => re.test(name);
}

export function exposedEntries(
  source: string,
  expose: ExposeConfig | undefined,
  listing: UpstreamListing,
  ctx: KindContext,
): NonNullable<import('../contract/kinds.js').OpenedSource['entries']> {
  const out: Record<'tools' | 'resources' | 'prompts', ContributedEntry[]> = {
    tools: [],
    resources: [],
    prompts: [],
  };
  for (const section of ['tools', 'resources', 'prompts'] as const) {
    const settings = expose?.[section];
    if (settings === undefined) continue;
    const at: EntryPath = ['expose', section];
    const include = (settings.include ?? ['*']).map(globMatcher);
    const exclude = (settings.exclude ?? []).map(globMatcher);
    // Resources: the static ones, then the templates (matched by name or by URI or URI template).
    const listed = section === 'resources' ? [...listing.resources, ...listing.templates] : listing[section];
    const upstreamName = (entry: (typeof listed)[number]) =>
      section === 'resources' ? String(entry.uri ?? entry.uriTemplate ?? entry.name) : entry.name;
    for (const name of Object.keys(settings.overrides ?? {}))
      if (!listed.some((entry) => entry.name === name || upstreamName(entry) === name))
        ctx.log.warn(`expose.${section}.overrides names "${name}", which ${source} does not list`);
    for (const entry of listed) {
      const key = upstreamName(entry);
      if (!include.some((m) => m(entry.name) || m(key)) || exclude.some((m) => m(entry.name) || m(key)))
        continue;
      const override = settings.overrides?.[entry.name] ?? settings.overrides?.[key];
      const wanted = `${settings.prefix ?? ''}${entry.name}`;
      // A resource's entry name is the manifest's handle on it (toolsets, policies, the audit), never
      // on the wire (clients see the upstream's name and URI): a display name such as "Dynamic Text
      // Resource" is made one. Tool and prompt names are what clients call, so those must be valid.
      const name = override?.name ?? (section === 'resources' ? resourceKey(wanted) : wanted);
      if (!NAME_RULES[section].test(name)) {
        ctx.log.warn(
          escapeControls(
            `${source} lists the ${section.slice(0, -1)} ${JSON.stringify(entry.name).slice(0, 140)}, whose name ${JSON.stringify(name).slice(0, 140)} is not a valid manifest name; it is not served (give it one with expose.${section}.overrides)`,
          ),
        );
        continue;
      }
      const config: Record<string, unknown> & { kind: string } = { kind: 'mcp', source };
      if (section === 'tools') config.tool = entry.name;
      else if (section === 'resources') config[entry.uri === undefined ? 'uriTemplate' : 'uri'] = key;
      else config.prompt = entry.name;
      const title =
        override?.title ?? (section === 'tools' && typeof entry.title === 'string' ? entry.title : undefined);
      if (title !== undefined) config.title = title;
      if (override?.description !== undefined) config.description = override.description;
      if (override?.annotations !== undefined) config.annotations = override.annotations;
      if (override?.pin !== undefined) config.pin = override.pin;
      out[section].push({ name, config, at: override ? [...at, 'overrides', entry.name] : at });
    }
  }
  return out;
}
