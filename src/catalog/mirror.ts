/**
 * Mirrored tools: many clients list and call tools but never read resources or get prompts, so a
 * manifest may serve a resource entry as the tool `read_<resource>` and a prompt as
 * `get_prompt_<prompt>` (`mirror:` on the entry, or `server.mirror` for all of them).
 *
 * A mirror wraps what the entry compiled to; it is not a kind. Its arguments come from the entry:
 * - one static resource: none;
 * - one URI template and nothing else: the template's variables, each with the description and the
 *   fixed value list (`enum`) the manifest declares;
 * - anything else (a folder's files, a schema's overview and tables): `uri`, an enum of the URIs when
 *   the set is fixed;
 * - a prompt: its arguments, as strings.
 * The result is what a read or a get would answer: text as text blocks, an image or audio file as
 * that block, other bytes as an embedded resource; a prompt's messages as their content blocks.
 *
 * compile.ts puts each mirror among the catalog's tools (so every list, diff, lint and test sees it)
 * and refuses a name a declared tool already has.
 */
import { type Problem, problems } from '../errors.js';
import type { CompiledResources, CompiledTool, EntryPath } from '../kinds/contract/kinds.js';
import { errorResult } from '../kinds/contract/results.js';
import { NAME_PATTERNS } from '../manifest/envelope.js';
import { abortSignalOf } from '../util/call-signal.js';
import { isObject } from '../util/is-object.js';
import {
  type ArgumentHint,
  type CatalogPrompt,
  type CatalogTool,
  type ContentBlock,
  InvalidRequestParams,
  type JsonSchema,
  type MirrorTarget,
  type PromptMessage,
  type ResourceContents,
  ResourceNotFound,
  type ToolAnnotations,
  type ToolCallContext,
  type ToolResult,
} from './types.js';

/** `mirror:` on a resource or prompt entry, as validated. */
export type MirrorField =
  | boolean
  | { readonly name?: string; readonly title?: string; readonly description?: string };

/** `server.mirror`: `true` mirrors every resource and prompt; the object form picks. */
export type MirrorDefaults = boolean | { readonly resources?: boolean; readonly prompts?: boolean };

/** A mirror before compile checks its name and wraps it like every tool. */
export interface Mirror {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly annotations: ToolAnnotations;
  readonly compiled: CompiledTool;
  readonly target: MirrorTarget;
}

export type MirroredSection = 'resources' | 'prompts';

/** A mirror of one entry; `given`: the entry has its own `mirror:` (errors point at it). */
export interface MirroredEntry {
  readonly section: MirroredSection;
  readonly entry: string;
  readonly given: boolean;
  readonly mirror: Mirror;
}

/** What a tool's name may be (the envelope's pattern for `tools:`): a made-up name may be too long. */
const TOOL_NAME = new RegExp(NAME_PATTERNS.tools);

/**
 * Puts each mirror among `tools` (as `wrap` makes it), in order, unless a declared tool or an
 * earlier mirror has its name (MIRROR_NAME_TAKEN) or the name is too long. Returns what each
 * mirrored tool stands for (its scopes) and the entry it mirrors (its toolsets).
 */
export function addMirrors(
  mirrored: readonly MirroredEntry[],
  tools: Map<string, CatalogTool>,
  report: (path: EntryPath, problem: Problem) => void,
  wrap: (mirror: Mirror, section: MirroredSection, entry: string) => CatalogTool,
): {
  targets: Map<string, MirrorTarget>;
  entries: Map<string, { readonly section: MirroredSection; readonly entry: string }>;
} {
  const targets = new Map<string, MirrorTarget>();
  const entries = new Map<string, { readonly section: MirroredSection; readonly entry: string }>();
  for (const { section, entry, given, mirror } of mirrored) {
    const at: EntryPath = given ? [section, entry, 'mirror'] : [section, entry];
    const other = entries.get(mirror.name);
    if (tools.has(mirror.name)) {
      const what =
        other === undefined
          ? `a tool of this manifest (tools.${mirror.name})`
          : `the mirror of ${other.section}.${other.entry}`;
      report(at, problems.MIRROR_NAME_TAKEN(mirror.name, what));
      continue;
    }
    if (!TOOL_NAME.test(mirror.name)) {
      report(
        at,
        problems.MANIFEST_INVALID_VALUE(
          `the mirror's tool name ${JSON.stringify(mirror.name)} is longer than a tool name may be (128 characters)`,
          'name it with `mirror: { name: … }`',
        ),
      );
      continue;
    }
    entries.set(mirror.name, { section, entry });
    targets.set(mirror.name, mirror.target);
    tools.set(mirror.name, wrap(mirror, section, entry));
  }
  return { targets, entries };
}

const PREFIX: Readonly<Record<MirroredSection, string>> = { resources: 'read_', prompts: 'get_prompt_' };

/** The name and texts a mirror gets, or undefined when the entry is not mirrored. */
export function mirrorSettings(
  section: MirroredSection,
  entry: string,
  field: unknown,
  defaults: MirrorDefaults | undefined,
): { name: string; title?: string; description?: string } | undefined {
  const byDefault = typeof defaults === 'boolean' ? defaults : (defaults?.[section] ?? false);
  const on = field === undefined ? byDefault : field !== false;
  if (!on) return undefined;
  const given = isObject(field) ? (field as Exclude<MirrorField, boolean>) : {};
  return {
    name: given.name ?? `${PREFIX[section]}${entry}`,
    ...(given.title !== undefined && { title: given.title }),
    ...(given.description !== undefined && { description: given.description }),
  };
}

const READ_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
});

/** The mirror of one resource entry; undefined when it compiled to nothing. */
export function resourceMirror(
  settings: { name: string; title?: string; description?: string },
  compiled: CompiledResources,
): Mirror | undefined {
  const { resources, templates } = compiled;
  const only = resources.length === 1 && templates.length === 0 && !compiled.list ? resources[0] : undefined;
  const template =
    resources.length === 0 && templates.length === 1 && !compiled.list ? templates[0] : undefined;
  const target: MirrorTarget = {
    resources: [...resources.map((r) => r.descriptor.uri), ...templates.map((t) => t.descriptor.uriTemplate)],
  };
  const common = {
    name: settings.name,
    ...(settings.title !== undefined && { title: settings.title }),
    annotations: READ_ANNOTATIONS,
    target,
  };
  if (only !== undefined) {
    const { uri, description } = only.descriptor;
    return {
      ...common,
      title: settings.title ?? only.descriptor.title ?? only.descriptor.name,
      description: settings.description ?? description ?? `Reads the resource ${uri}.`,
      inputSchema: objectSchema({}, []),
      compiled: { run: (_args, ctx) => asToolResult(uri, only.read(abortSignalOf(ctx.signal))) },
    };
  }
  if (template !== undefined) {
    const { uriTemplate, description } = template.descriptor;
    // Claim-bound variables (claims.ts) are filled from the caller: the model never sees them.
    const bound = new Set(template.boundVariables ?? []);
    const variables = templateVariables(uriTemplate).filter((v) => !bound.has(v.name));
    const properties: Record<string, JsonSchema> = {};
    for (const { name } of variables)
      define(properties, name, stringSchema(ownHint(template.argumentHints, name)));
    return {
      ...common,
      description: settings.description ?? description ?? `Reads the resource ${uriTemplate}, filled in.`,
      inputSchema: objectSchema(
        properties,
        variables.filter((v) => v.required).map((v) => v.name),
      ),
      compiled: {
        async run(args, ctx) {
          const given = args as Readonly<Record<string, string>>;
          const refusal = template.bindVariables?.(given, ctx.identity);
          if (typeof refusal === 'string') return errorResult(refusal);
          const uri = expand(uriTemplate, refusal ?? given);
          const vars = template.match(uri);
          if (vars === undefined)
            return errorResult(`These values do not make a URI of ${uriTemplate} (${uri}).`);
          return asToolResult(uri, template.read(uri, vars, abortSignalOf(ctx.signal), ctx.identity));
        },
      },
    };
  }
  // Many resources: the caller names one by its URI.
  const fixed = templates.length === 0 && !compiled.list;
  const uris = resources.map((r) => r.descriptor.uri);
  const forms = templates.map((t) => t.descriptor.uriTemplate);
  const byUri = new Map(resources.map((r) => [r.descriptor.uri, r]));
  const listed = [...uris.slice(0, 3), ...forms].join(', ');
  return {
    ...common,
    description:
      settings.description ??
      `Reads one resource of ${uris.length + forms.length > 1 ? 'these' : 'this'}: ${listed}${uris.length > 3 ? ', …' : ''}.`,
    inputSchema: objectSchema(
      {
        uri: fixed
          ? { type: 'string', description: 'The URI of the resource to read.', enum: uris }
          : { type: 'string', description: `The URI of the resource to read: ${listed}.` },
      },
      ['uri'],
    ),
    compiled: {
      async run(args, ctx) {
        const uri = String(args.uri);
        const signal = abortSignalOf(ctx.signal);
        const resource = byUri.get(uri);
        if (resource !== undefined) return asToolResult(uri, resource.read(signal));
        for (const t of templates) {
          const vars = t.match(uri);
          if (vars !== undefined) return asToolResult(uri, t.read(uri, vars, signal, ctx.identity));
        }
        return errorResult(`Resource not found: ${uri}. This tool reads ${listed}.`);
      },
    },
  };
}

/** The mirror of one prompt: its arguments in, its messages out. */
export function promptMirror(
  settings: { name: string; title?: string; description?: string },
  prompt: CatalogPrompt,
): Mirror {
  const { descriptor } = prompt;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const argument of descriptor.arguments ?? []) {
    const hint = ownHint(prompt.argumentHints, argument.name);
    define(
      properties,
      argument.name,
      stringSchema({
        ...hint,
        ...(argument.description !== undefined && { description: argument.description }),
      }),
    );
    if (argument.required) required.push(argument.name);
  }
  return {
    name: settings.name,
    ...((settings.title ?? descriptor.title) !== undefined && { title: settings.title ?? descriptor.title }),
    description:
      settings.description ?? descriptor.description ?? `The messages of the prompt ${descriptor.name}.`,
    inputSchema: objectSchema(properties, required),
    annotations: READ_ANNOTATIONS,
    target: { prompt: descriptor.name },
    compiled: {
      async run(args, ctx) {
        const { interaction, identity } = ctx as ToolCallContext;
        try {
          const { messages } = await prompt.get(
            args as Readonly<Record<string, string>>,
            abortSignalOf(ctx.signal),
            {
              ...(interaction !== undefined && { interaction }),
              ...(identity !== undefined && { identity }),
            },
          );
          return { content: messageBlocks(messages) };
        } catch (err) {
          if (err instanceof InvalidRequestParams)
            return errorResult(`Prompt ${descriptor.name}: ${err.message}.`);
          throw err;
        }
      },
    },
  };
}

function objectSchema(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required: [...required] }),
    additionalProperties: false,
  };
}

function stringSchema(hint: ArgumentHint | undefined): JsonSchema {
  return {
    type: 'string',
    ...(hint?.description !== undefined && { description: hint.description }),
    ...(hint?.enum !== undefined && { enum: [...hint.enum] }),
  };
}

function ownHint(
  hints: Readonly<Record<string, ArgumentHint>> | undefined,
  name: string,
): ArgumentHint | undefined {
  return hints !== undefined && Object.hasOwn(hints, name) ? hints[name] : undefined;
}

/** Defines a property whatever its name (`__proto__` included). */
function define(target: Record<string, JsonSchema>, name: string, value: JsonSchema): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

const EXPRESSION = /\{([+#./;?&]?)([^{}]*)\}/g;

/** The variables of an RFC 6570 template; those of a query form (`{?a,b}`) are optional. */
function templateVariables(template: string): { name: string; required: boolean }[] {
  const variables: { name: string; required: boolean }[] = [];
  for (const [, operator, names] of template.matchAll(EXPRESSION))
    for (const name of (names ?? '').split(','))
      if (name !== '') variables.push({ name, required: operator !== '?' && operator !== '&' });
  return variables;
}

/**
 * The URI a template names with these values: `{name}` percent-encodes the value as one segment,
 * `{+name}` keeps `/`, `{?a,b}` adds the given ones as a query. The template's own match checks
 * the result, so a value that does not fit is refused rather than read elsewhere.
 */
function expand(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(EXPRESSION, (_all, operator: string, names: string) => {
    const given = names.split(',').filter((name) => typeof values[name] === 'string');
    if (operator === '?' || operator === '&') {
      const pairs = given.map((name) => `${name}=${encodeURIComponent(values[name]!)}`);
      return pairs.length === 0 ? '' : `${operator}${pairs.join('&')}`;
    }
    const encode = operator === '+' || operator === '#' ? encodeURI : encodeURIComponent;
    return given.map((name) => encode(values[name]!)).join(',');
  });
}

/** A read's contents as a tool result; not-found and a refused value are results the model can act on. */
async function asToolResult(uri: string, reading: Promise<readonly ResourceContents[]>): Promise<ToolResult> {
  try {
    return { content: (await reading).map(contentBlock) };
  } catch (err) {
    if (err instanceof ResourceNotFound) return errorResult(`Resource not found: ${uri}.`);
    if (err instanceof InvalidRequestParams) return errorResult(`Cannot read ${uri}: ${err.message}.`);
    throw err;
  }
}

function contentBlock(contents: ResourceContents): ContentBlock {
  if ('text' in contents) return { type: 'text', text: contents.text };
  const mimeType = contents.mimeType ?? 'application/octet-stream';
  if (mimeType.startsWith('image/')) return { type: 'image', data: contents.blob, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data: contents.blob, mimeType };
  return { type: 'resource', resource: contents };
}

/** The messages' content; when the assistant speaks too, each text says whose it is. */
function messageBlocks(messages: readonly PromptMessage[]): ContentBlock[] {
  const labelled = messages.some((m) => m.role !== 'user');
  return messages.map(({ role, content }) =>
    labelled && content.type === 'text' ? { type: 'text', text: `${role}: ${content.text}` } : content,
  );
}
