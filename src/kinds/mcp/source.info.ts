/**
 * Source kind `mcp`: what validation, the manifest schema and the docs need, without the code that
 * opens it (../builtin.ts). The kind itself: ./source.ts. Docs: docs/upstream-mcp.md.
 */
import type { KindInfo } from '../contract/kinds.js';
import type { JsonSchema } from '../contract/types.js';
import { headerNameSchema, OUTBOUND_AUTH_SCHEMA } from '../shared/outbound-auth-schema.js';

export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CONCURRENCY = 16;
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_ENV_PASSTHROUGH = ['PATH', 'HOME', 'LANG'];
/** Caller sessions a token-exchange source keeps open (`maxSessions`). */
export const DEFAULT_MAX_SESSIONS = 64;

/** `listingAuth`: the source's own credentials (no token exchange: there is no caller at open). */
const { tokenExchange: _perCaller, ...ownAuth } = (
  OUTBOUND_AUTH_SCHEMA as { properties: Record<string, JsonSchema> }
).properties;

const patterns: JsonSchema = {
  type: 'array',
  items: { type: 'string', minLength: 1 },
  description: 'Upstream names; `*` matches any run of characters, `?` one.',
};

const overrideFields: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, description: 'The name served instead (no prefix is added).' },
  title: { type: 'string' },
  description: { type: 'string' },
};

function section(what: string, extra: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    description: `Which upstream ${what} are served, under which names.`,
    properties: {
      include: {
        ...patterns,
        description: `Upstream ${what} served (default: all). ${patterns.description}`,
      },
      exclude: { ...patterns, description: `Upstream ${what} left out, even when included.` },
      prefix: {
        type: 'string',
        pattern: '^[A-Za-z0-9_.-]{0,32}$',
        description: `Put before each upstream name (e.g. \`fs_\`), unless an override names it.`,
      },
      overrides: {
        type: 'object',
        description: 'Per upstream name: what is served instead of what the upstream says.',
        additionalProperties: {
          type: 'object',
          properties: { ...overrideFields, ...extra },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  };
}

export const mcpSourceInfo: KindInfo = {
  kind: 'mcp',
  description:
    'Another MCP server (a program over stdio, or a Streamable HTTP URL), spoken to by mcp-run; its tools, resources and prompts are served through `kind: mcp` entries or `expose:`. Docs: docs/upstream-mcp.md.',
  configSchema: {
    type: 'object',
    properties: {
      command: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', minLength: 1 },
        description:
          'The program and its arguments, run without a shell (e.g. `[npx, -y, "@modelcontextprotocol/server-memory"]`); the program is a bare name found on PATH or a path from the manifest folder.',
      },
      env: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description:
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest reference, not a JS template.
          "Environment variables of the program (secrets: use ${env:NAME}); it gets no others but `envPassthrough`'s.",
      },
      envPassthrough: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        description: `Variables of mcp-run's own environment passed on to the program (default: ${DEFAULT_ENV_PASSTHROUGH.join(', ')}).`,
      },
      cwd: {
        type: 'string',
        minLength: 1,
        description: 'Working folder of the program (default: the manifest folder).',
      },
      roots: {
        type: 'array',
        maxItems: 64,
        items: { type: 'string', minLength: 1 },
        description:
          "Folders the upstream is told are its roots when it asks (`roots/list`): paths (relative to the manifest) or file:// URIs. Without it, mcp-run declares no roots and the upstream keeps its own; a caller's roots are never passed on (one upstream session serves every caller).",
      },
      url: {
        type: 'string',
        pattern: '^https?://',
        description:
          'The Streamable HTTP endpoint of an upstream served over HTTP (either era: see `era`), instead of `command`.',
      },
      era: {
        enum: ['auto', '2025', '2026'],
        default: 'auto',
        description:
          'The protocol era spoken to `url`: `auto` asks `server/discover` and speaks 2026-07-28 (stateless) when the upstream answers it, else initializes (2025); `2025` only initializes; `2026` only speaks 2026-07-28 (the open fails otherwise). A stdio upstream speaks 2025.',
      },
      headers: {
        type: 'object',
        propertyNames: headerNameSchema,
        additionalProperties: { type: 'string' },
        description: 'Headers sent with every request to `url`.',
      },
      auth: {
        ...(OUTBOUND_AUTH_SCHEMA as object),
        description:
          "Credentials for `url` (bearer, basic, apiKey in a header, oauth client credentials, or a token exchange of each caller's token: then every caller gets an upstream session of its own); never the caller's token.",
      },
      listingAuth: {
        ...(OUTBOUND_AUTH_SCHEMA as object),
        properties: ownAuth,
        description:
          "With `auth: { tokenExchange }` (and only then): the source's own credentials for the one session that reads the upstream's lists when the source opens (bearer, basic, apiKey or oauth); calls go through each caller's own session.",
      },
      maxSessions: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_SESSIONS,
        description:
          'With `auth: { tokenExchange }`: caller sessions kept open at once; past it the least recently used idle one is closed.',
      },
      perWorker: {
        type: 'boolean',
        default: false,
        description:
          'With `--workers N`, let each worker start its own copy of this stdio upstream: only for one that keeps no state between calls (server-filesystem). Without it a stdio upstream is refused under --workers, because a stateful one (server-memory) would diverge between the copies.',
      },
      start: {
        enum: ['serve', 'first-use'],
        default: 'serve',
        description:
          'When the upstream runs: `serve` (default) keeps it running from the start and restarts it when it dies; `first-use` stops it once its lists are read and starts it on the first call.',
      },
      connectTimeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_CONNECT_TIMEOUT_MS,
        description:
          'Time limit of a start: the program launched (or the URL reached) and the handshake done.',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_CALL_TIMEOUT_MS,
        description: 'Time limit of one call, read or get; past it the upstream is told to cancel.',
      },
      maxConcurrency: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_CONCURRENCY,
        description: 'Requests to this upstream at once; more wait up to 5 s for a place, then fail.',
      },
      maxMessageBytes: {
        type: 'integer',
        minimum: 1024,
        default: DEFAULT_MAX_MESSAGE_BYTES,
        description: 'The largest message the upstream may send; a larger one restarts a stdio upstream.',
      },
      maxResultBytes: {
        type: 'integer',
        minimum: 1024,
        default: DEFAULT_MAX_RESULT_BYTES,
        description: 'The largest result of one call, read or get; a larger one fails that request.',
      },
      descriptionChange: {
        enum: ['report', 'refuse'],
        default: 'report',
        description:
          "When the upstream's list_changed brings a served description that changed (a rug pull): `report` (default) warns, naming the entry, the old and the new text, and serves it; `refuse` keeps the previous version serving.",
      },
      expose: {
        type: 'object',
        description:
          "The upstream's entries served as they are listed when the source opens, filtered and renamed; names that are not valid manifest names are left out with a warning.",
        properties: {
          tools: section('tools', {
            annotations: {
              type: 'object',
              description: 'Annotations served instead of the upstream’s.',
              additionalProperties: { type: ['boolean', 'string'] },
            },
            pin: {
              type: 'object',
              description: 'Arguments fixed here, hidden from the model; a call that sets one is refused.',
            },
          }),
          resources: section('resources', {}),
          prompts: section('prompts', {}),
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
};
