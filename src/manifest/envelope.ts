/**
 * The envelope: what every manifest has whatever its kinds. Validation step 1 checks it (sections,
 * names, that each entry is a mapping with a string `kind`); step 2 checks each entry against its
 * kind's schema. Splitting the two keeps an unknown kind one clear error instead of a oneOf wall.
 */
import { POLICY_FIELD_SCHEMA, POLICY_SCHEMA } from '../util/policy-schema.js';
import { limitsSchema, RATE_PATTERN } from '../util/rate.js';
import { ENTRY_SECTIONS, type EntrySection } from './types.js';

/** Tool and prompt names are what a client shows and calls; source and resource names stay short. */
export const NAME_PATTERNS: Readonly<Record<EntrySection, string>> = {
  sources: '^[A-Za-z0-9_.-]{1,64}$',
  tools: '^[A-Za-z0-9_.-]{1,128}$',
  resources: '^[A-Za-z0-9_.-]{1,64}$',
  prompts: '^[A-Za-z0-9_.-]{1,128}$',
};

export const SINGULAR: Readonly<Record<EntrySection, string>> = {
  sources: 'source',
  tools: 'tool',
  resources: 'resource',
  prompts: 'prompt',
};

const SECTION_DESCRIPTIONS: Readonly<Record<EntrySection, string>> = {
  sources:
    'Named connections shared by entries (databases, HTTP APIs). Each entry picks an implementation with `kind`.',
  tools: 'Tools the model can call, by name. Each entry picks an implementation with `kind`.',
  resources: 'Resources (files, folders, schemas) clients can read, by name.',
  prompts:
    'Prompt templates, by name. An entry may leave out `kind`: it defaults to `template` (the one prompt kind).',
};

const SCOPE_LIST = {
  type: 'array',
  items: { type: 'string', minLength: 1, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' },
} as const;
const SCOPE_TABLE = (what: string) =>
  ({
    type: 'object',
    additionalProperties: SCOPE_LIST,
    description: `${what} → the scopes needed to see and use it.`,
  }) as const;

const AUTH_SCHEMA = {
  type: 'object',
  description:
    'Serve over HTTP as an OAuth 2.1 resource server: accept access tokens that the authorization server issued for this resource, with the scopes below. (Static tokens and API keys stay available through --auth-token-env / --api-key-env.)',
  properties: {
    issuer: {
      type: 'string',
      pattern: '^https?://',
      description: "The authorization server's issuer identifier; tokens must carry exactly this `iss`.",
    },
    resource: {
      type: 'string',
      pattern: '^https?://',
      description:
        "This server's canonical URI (RFC 8707), the audience its tokens must name, e.g. https://mcp.example.com/mcp (default: the listening URL).",
    },
    authorizationServers: {
      type: 'array',
      items: { type: 'string', pattern: '^https?://' },
      description: 'Authorization servers named in the protected resource metadata (default: [issuer]).',
    },
    jwksUri: {
      type: 'string',
      pattern: '^https?://',
      description: "The signing keys (default: the issuer metadata's jwks_uri).",
    },
    algorithms: {
      type: 'array',
      items: {
        type: 'string',
        enum: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
      },
      description: 'Accepted signature algorithms (default: all of these).',
    },
    clockToleranceSec: {
      type: 'integer',
      minimum: 0,
      maximum: 300,
      description: 'Leeway for exp and nbf, in seconds (default 30).',
    },
    introspection: {
      type: 'object',
      description: 'Check opaque (non-JWT) tokens by RFC 7662 introspection, as this client.',
      properties: {
        endpoint: {
          type: 'string',
          pattern: '^https?://',
          description: "Default: the issuer metadata's introspection_endpoint.",
        },
        clientId: { type: 'string', minLength: 1 },
        clientSecret: {
          type: 'string',
          minLength: 1,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest reference, not a JS template.
          description: 'Write it as an environment reference, e.g. "${env:MCP_INTROSPECTION_SECRET}".',
        },
      },
      required: ['clientId', 'clientSecret'],
      additionalProperties: false,
    },
    resourceName: { type: 'string', description: 'resource_name in the protected resource metadata.' },
    scopes: {
      type: 'object',
      description: 'Scopes a token needs. A caller lists only the tools, resources and prompts it may use.',
      properties: {
        required: { ...SCOPE_LIST, description: 'Needed for every request.' },
        tools: SCOPE_TABLE('Tool name'),
        resources: SCOPE_TABLE("Resource URI (or a template's uriTemplate)"),
        prompts: SCOPE_TABLE('Prompt name'),
      },
      additionalProperties: false,
    },
  },
  required: ['issuer'],
  additionalProperties: false,
} as const;

const SIZE = (what: string) =>
  ({
    anyOf: [
      { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*([kKmMgG]?[bB])?\\s*$' },
      { type: 'integer', minimum: 1 },
    ],
    description: `${what}: a size such as \`10MB\`, \`512KB\` (1024-based), or a number of bytes.`,
  }) as const;

const AUDIT_SCHEMA = {
  type: 'object',
  description:
    'The audit trail (docs/governance.md#audit-trail): one JSON Lines record per tools/call, resources/read and prompts/get, hash-chained, queried and verified with `mcp-run audit`.',
  properties: {
    file: {
      type: 'string',
      minLength: 1,
      description:
        'The JSON Lines file, relative to this manifest. One writer (process) per file: give each replica its own file (its own `writer` name too).',
    },
    sink: {
      enum: ['file', 'stderr', 'otel'],
      description:
        'Where records go (default: `file` when `file` is set, else `stderr`); `otel`: OpenTelemetry logs over OTLP/HTTP, one log record per line.',
    },
    endpoint: {
      type: 'string',
      minLength: 1,
      description:
        'For `sink: otel`: the OTLP/HTTP endpoint, `/v1/logs` added unless given (default OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs, else http://localhost:4318/v1/logs).',
    },
    rotate: SIZE('Size at which the file is rotated to `<file>.<n>` (default 10MB)'),
    keep: {
      type: 'integer',
      minimum: 1,
      description: 'Rotated files kept; older ones are deleted (default 10).',
    },
    include: {
      type: 'array',
      uniqueItems: true,
      items: {
        enum: [
          'tools/call',
          'resources/read',
          'prompts/get',
          'tools/list',
          'resources/list',
          'resources/templates/list',
          'prompts/list',
          'initialize',
          'ping',
        ],
      },
      description: 'The methods audited (default [tools/call, resources/read, prompts/get]).',
    },
    buffer: SIZE('Records queued for the sink before `onBackpressure` applies (default 4MB)'),
    onBackpressure: {
      enum: ['block', 'refuse'],
      default: 'block',
      description:
        'When the sink cannot keep up: `block` makes new requests wait until the queue drains; `refuse` answers them with a limit error (-32041, rule `audit`). Either way each is counted (mcp_run_audit_backpressure_total) and reported; no record is dropped.',
    },
    writer: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description:
        "Names this server's chain in every record (default hostname-pid-start). A fixed name continues its chain across restarts.",
    },
  },
  additionalProperties: false,
} as const;

/** `catalog:` of the server and of a toolset: how a big catalog is disclosed (catalog/disclosure.ts). */
const CATALOG_SCHEMA = {
  type: 'object',
  description:
    '`mode: search` lists a few meta-tools (search_tools, browse_tools, describe_tool, call_tool) instead of every tool, plus the `pin`ned ones in full: a big catalog a model can afford (docs/big-catalogs.md). `full` (the default) lists every tool.',
  properties: {
    mode: { enum: ['full', 'search'], description: 'How tools/list discloses the tools (default full).' },
    pin: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'Tools listed in full in search mode, by name; `*` matches any run of characters.',
    },
  },
  required: ['mode'],
  additionalProperties: false,
} as const;

const SERVER_SCHEMA = {
  type: ['object', 'null'],
  description: 'What the server tells clients about itself.',
  properties: {
    name: {
      type: 'string',
      description: 'Server name shown to clients (default: mcp-run).',
    },
    version: { type: 'string', description: 'Server version shown to clients (default: 0.0.0).' },
    title: { type: 'string', description: 'Human-readable server title.' },
    description: { type: 'string', description: 'What the server offers.' },
    instructions: { type: 'string', description: 'Guidance for the model on how to use this server.' },
    pageSize: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description:
        'Items per page in list results (default 1000, which most manifests fit in; a client that ignores nextCursor sees only the first page).',
    },
    outputSchemas: {
      enum: ['declared', 'derived'],
      default: 'declared',
      description:
        "Which tools list an outputSchema. `declared` (the default): only those whose manifest entry has `outputSchema:`. `derived`: also the schema a kind works out itself (a sql tool's rows and column types), which clients may validate results against but which roughly triples each descriptor, sent in every tools/list and, by some hosts, to the model. Results carry structuredContent either way.",
    },
    auth: AUTH_SCHEMA,
    limits: limitsSchema('every tool call of the server', {
      requests: {
        type: 'string',
        pattern: RATE_PATTERN,
        description:
          'HTTP requests one caller may send to the MCP endpoint in any window of that length, e.g. `600/minute`; one more is answered 429 with Retry-After, before its body is read.',
      },
    }),
    policies: {
      type: 'object',
      description:
        'Named policies (docs/governance.md#policies): an entry or toolset applies one by naming it in its `policy:`; one with `appliesTo: all` applies to every tool, resource and prompt.',
      propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,64}$' },
      additionalProperties: {
        ...POLICY_SCHEMA,
        properties: {
          ...POLICY_SCHEMA.properties,
          appliesTo: {
            enum: ['all', 'named'],
            description: '`all`: every entry; `named` (default): the entries and toolsets that name it.',
          },
        },
      },
    },
    catalog: CATALOG_SCHEMA,
    audit: AUDIT_SCHEMA,
    defaultToolset: {
      type: 'string',
      description:
        'The toolset the default endpoint (/mcp) and stdio without --toolset serve (docs/toolsets.md). Default: everything the manifest declares.',
    },
    mirror: {
      description:
        "Serve resources and prompts as tools too, for clients that only use tools (docs/clients.md): each resource entry as `read_<name>`, each prompt as `get_prompt_<name>`. `true` mirrors both; an entry's own `mirror:` overrides this.",
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          properties: {
            resources: { type: 'boolean', description: 'Mirror every resource entry (default false).' },
            prompts: { type: 'boolean', description: 'Mirror every prompt (default false).' },
          },
          additionalProperties: false,
        },
      ],
    },
    tasks: {
      type: 'object',
      description:
        'Tasks (tools called now, fetched later; docs/tasks.md): how long they are kept and how many a caller may hold.',
      properties: {
        ttlMs: {
          type: 'integer',
          minimum: 1000,
          description:
            'How long a task and its result are kept after it starts, in ms (default 3600000). A 2025 client may ask for less.',
        },
        pollIntervalMs: {
          type: 'integer',
          minimum: 1,
          description: 'The polling interval suggested to clients, in ms (default 1000).',
        },
        maxPerCaller: {
          type: 'integer',
          minimum: 1,
          description:
            'Tasks one caller may hold at once, finished ones included until they expire (default 100).',
        },
        maxBytes: {
          type: 'integer',
          minimum: 1024,
          description: 'Memory for all tasks together, in bytes, results included (default 67108864).',
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const NAME_LIST = (what: string) =>
  ({
    type: 'array',
    items: { type: 'string', minLength: 1 },
    description: `${what}, by name; \`*\` matches any run of characters (e.g. billing_*).`,
  }) as const;

const TOOLSETS_SCHEMA = {
  type: ['object', 'null'],
  description:
    'Named groups of tools, resources and prompts (docs/toolsets.md). Each is served on its own HTTP endpoint, /mcp/<name>, and on stdio with --toolset <name>; its clients see and hear of only its members.',
  propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
  additionalProperties: {
    type: 'object',
    properties: {
      description: { type: 'string', description: 'What the toolset is for.' },
      tools: NAME_LIST('Tools (a mirrored tool counts too)'),
      resources: NAME_LIST('Resource entries (all the URIs and templates each serves)'),
      prompts: NAME_LIST('Prompts'),
      skills: NAME_LIST('Skills (all the skill:// files of each)'),
      catalog: CATALOG_SCHEMA,
      scopes: {
        ...SCOPE_LIST,
        description:
          "Scopes a token needs on this toolset's endpoint (HTTP with server.auth), besides those of each entry.",
      },
      limits: limitsSchema("calls of this toolset's tools, whichever endpoint they come to"),
      policy: {
        ...POLICY_FIELD_SCHEMA,
        description:
          "Policies for everything served through this toolset (docs/governance.md#policies), checked after the server-wide ones and before each entry's own; `toolset` in an expression is this name.",
      },
    },
    additionalProperties: false,
  },
} as const;

const INCLUDE_SCHEMA = {
  type: 'array',
  description:
    'Other manifest files whose sources, tools, resources, prompts and schemas are merged into this one, e.g. [tools/issues.yaml, tools/pulls.yaml]. Paths are relative to this file and stay inside its folder; an included file may include others (no cycles); a name may be declared only once across all of them.',
  items: { type: 'string', minLength: 1 },
} as const;

const SCHEMAS_SCHEMA = {
  type: ['object', 'null'],
  description:
    "JSON Schemas written once and used by many tools: `$ref: '#/schemas/Name'` in a tool's input, inputSchema or outputSchema. Clients see each tool's schema self-contained, with the ones it uses under `$defs`.",
  propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,128}$' },
  additionalProperties: { type: ['object', 'boolean'] },
} as const;

const RELOAD_SCHEMA = {
  type: ['object', 'null'],
  description: 'How hot reload treats an edit of this manifest (docs/contract.md).',
  properties: {
    refuseBreaking: {
      type: 'boolean',
      default: false,
      description:
        'Refuse an edit that breaks the contract for clients (a tool removed or renamed, an input field made required, a narrower type…): keep serving the last good version and log why, as an error. Additive and description-only edits go through.',
    },
  },
  additionalProperties: false,
} as const;

const SKILLS_SCHEMA = {
  type: ['object', 'null'],
  description:
    'Agent skills served over MCP (the io.modelcontextprotocol/skills extension, docs/skills.md): skills/list, skills/get, and each file as a skill:// resource with its size and digest.',
  properties: {
    folders: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        "Folders of skills, relative to this file, e.g. [./skills]. Each subfolder holding a SKILL.md is one skill, named by its folder (the SKILL.md frontmatter's `name` must match), served at skill://<name>/SKILL.md with every file under it. Paths stay inside their folder, symlinks included; an edit reloads the skill.",
    },
    directoryRead: {
      type: 'boolean',
      default: true,
      description:
        "Serve resources/directory/read, which lists a skill folder's direct children (declared as the extension's directoryRead).",
    },
    pageSize: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description:
        "Skills per skills/list page, and children per resources/directory/read page (default: server.pageSize). A skill's entry lists every file with its digest, so a page of skills weighs more than a page of tools.",
    },
    fromToolsets: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'Toolsets to generate a skill from, one skill each, teaching a model to use its tools.',
    },
  },
  additionalProperties: false,
} as const;

/** One test case (docs/testing.md): the same shape as in a `tests/*.yaml` file; `mcp-run test` runs them. */
const TEST_CASE_SCHEMA = {
  type: 'object',
  description: 'One case: a tool call, resource read or prompt get, and what its result must be.',
  properties: {
    name: { type: 'string', description: 'What the case checks (default: "call <tool>").' },
    call: { type: 'string', minLength: 1, description: 'A tool to call.' },
    read: { type: 'string', minLength: 1, description: 'A resource URI to read.' },
    prompt: { type: 'string', minLength: 1, description: 'A prompt to get.' },
    args: { type: 'object', description: 'The tool or prompt arguments.' },
    claims: {
      type: 'object',
      description:
        "The caller's identity: the claims of a verified access token (e.g. { sub: u1, email: ada@example.com }), which `fromClaim` inputs and arguments read. Without it the case has no identity, as on stdio.",
    },
    expect: {
      type: 'object',
      description: 'Expectations on the result; at least one.',
      properties: {
        isError: { type: 'boolean', description: 'Tool calls: the result is an error (default false).' },
        text: { type: 'string', description: 'The text a person reads equals this.' },
        contains: {
          type: ['string', 'array'],
          items: { type: 'string' },
          description: 'The text contains this (or each of these).',
        },
        structured: { description: 'Tool calls: a JSON subset of structuredContent.' },
        rows: { type: 'integer', minimum: 0, description: 'Tool calls: how many rows the result has.' },
        snapshot: {
          type: 'boolean',
          description: 'The whole result equals its stored snapshot (<manifest>.snap.json).',
        },
        denied: {
          type: 'string',
          minLength: 1,
          description:
            'The request is refused by this policy (docs/governance.md#policies): a -32040 error naming it. Give it with `claims:` to test a role.',
        },
      },
      minProperties: 1,
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const TESTS_SCHEMA = {
  type: 'array',
  items: TEST_CASE_SCHEMA,
  description:
    'Test cases that `mcp-run test` runs against this manifest, as in a tests/*.yaml file beside it (docs/testing.md). Serving ignores them.',
} as const;

/**
 * The envelope schema. `kindOptional(section)` marks sections whose entries may omit `kind` (they
 * get a default one); the loader fills defaults in before validating, so it passes nothing here,
 * while the editor schema must accept the omission.
 */
export function envelopeSchema(kindOptional: (section: EntrySection) => boolean = () => false): object {
  const sections: Record<string, object> = {};
  for (const section of ENTRY_SECTIONS) {
    sections[section] = {
      // An empty section (`tools:` with nothing under it) is allowed, as a section still being written.
      type: ['object', 'null'],
      description: SECTION_DESCRIPTIONS[section],
      propertyNames: { pattern: NAME_PATTERNS[section] },
      additionalProperties: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        ...(kindOptional(section) ? {} : { required: ['kind'] }),
      },
    };
  }
  return {
    type: 'object',
    properties: {
      server: SERVER_SCHEMA,
      include: INCLUDE_SCHEMA,
      schemas: SCHEMAS_SCHEMA,
      reload: RELOAD_SCHEMA,
      ...sections,
      toolsets: TOOLSETS_SCHEMA,
      skills: SKILLS_SCHEMA,
      tests: TESTS_SCHEMA,
    },
    additionalProperties: false,
  };
}
