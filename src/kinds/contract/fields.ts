/**
 * The schema of the fields every tool has, whatever its kind (`ToolCommon` in kinds.ts); the catalog
 * compiler handles them, so a kind's own `configSchema` never declares them.
 */
import { POLICY_FIELD_SCHEMA } from '../../util/policy-schema.js';
import { limitsSchema } from '../../util/rate.js';
import { QUEUE_WAIT_MS } from '../../util/slots.js';
import type { JsonSchema } from './types.js';

/** Fields every tool has, whatever its kind; the catalog compiler handles them. */
export const TOOL_FIELDS: Record<string, JsonSchema> = {
  title: { type: 'string', description: 'Human-friendly name shown by clients.' },
  description: {
    type: 'string',
    description: 'What the tool does and when to use it; the model reads this to choose the tool.',
  },
  group: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description:
      "The tool's group in a catalog served with `catalog: { mode: search }` (docs/big-catalogs.md): what `browse_tools` lists it under and search weighs. Default: the first segment of an http tool's path, else its source. The OpenAPI import writes the operation's first tag.",
  },
  input: {
    type: 'object',
    description:
      "The arguments, as JSON Schema properties by name. Each is required unless it has a `default` or `required: false`. `fromClaim: email` takes an argument's value from that claim of the caller's verified OAuth access token: it is hidden from the model and an argument may not set it (docs/security.md).",
    additionalProperties: { type: 'object' },
  },
  inputSchema: {
    type: 'object',
    description:
      'The whole input JSON Schema (2020-12), given verbatim instead of `input:`: `$schema`, `$defs`, `$ref`, `allOf`/`oneOf`/`anyOf`, `if`/`then`/`else`. Served unchanged in `tools/list`; its top-level `properties` are the argument names the tool can use.',
    properties: { type: { const: 'object' } },
    required: ['type'],
  },
  outputSchema: {
    type: 'object',
    description: 'JSON Schema that the structured result must satisfy; advertised to clients.',
  },
  maxConcurrency: {
    type: 'integer',
    minimum: 1,
    description: `Calls of this tool running at once (default: unlimited, shell tools 4; all calls of the server together at most 64). A call over a limit waits up to ${QUEUE_WAIT_MS} ms, then fails with an error that says to retry.`,
  },
  limits: limitsSchema('calls of this tool'),
  task: {
    description:
      'Whether the tool may run as a task, called now and fetched later (docs/tasks.md): `optional`, `required` or `forbidden` (default: `optional` for shell and http tools, else `forbidden`). The object form also says where its steps are asked: `steps: before` asks them on the call (2026 input_required) and starts the task once answered; `in-task` (default) asks them from inside the task.',
    anyOf: [
      { enum: ['optional', 'required', 'forbidden'] },
      {
        type: 'object',
        properties: {
          support: { enum: ['optional', 'required', 'forbidden'] },
          steps: { enum: ['in-task', 'before'] },
        },
        additionalProperties: false,
      },
    ],
  },
  annotations: {
    type: 'object',
    description: 'Hints for clients; values declared here override the defaults the kind implies.',
    properties: {
      title: { type: 'string' },
      readOnlyHint: { type: 'boolean', description: 'The tool does not change its environment.' },
      destructiveHint: { type: 'boolean', description: 'The tool may destroy or overwrite data.' },
      idempotentHint: {
        type: 'boolean',
        description: 'Calling it again with the same arguments has no further effect.',
      },
      openWorldHint: {
        type: 'boolean',
        description: 'The tool reaches outside systems (the internet, other services).',
      },
    },
    additionalProperties: false,
  },
};

/** A column of the table view: a label, a format, or both. */
const VIEW_COLUMN: JsonSchema = {
  anyOf: [
    { type: 'string', description: 'The column label.' },
    {
      type: 'object',
      properties: {
        label: { type: 'string' },
        format: {
          type: 'string',
          enum: ['text', 'number', 'date', 'currency', 'link'],
          description:
            'How values are shown: `currency` uses `currency` (default USD), `link` makes http(s) values links.',
        },
        currency: {
          type: 'string',
          pattern: '^[A-Z]{3}$',
          description: 'ISO 4217 code for `format: currency`.',
        },
      },
      additionalProperties: false,
    },
  ],
};

const DOMAINS: JsonSchema = { type: 'array', items: { type: 'string', minLength: 1 } };

/**
 * `ui:` on every tool: the MCP Apps view a host shows the result in (catalog/views.ts, docs/apps.md).
 * The short form names a built-in view; the object form adds its settings, or names an HTML file.
 */
export const UI_FIELD: Record<string, JsonSchema> = {
  ui: {
    description:
      'The MCP Apps view of the result, for hosts that show views (docs/apps.md): `table`, `card` or `chart`, or an object with `view` and its settings, or `html: ./file.html` for a view of your own. `visibility: [app]` makes a tool the views call but the model does not see.',
    anyOf: [
      { type: 'string', enum: ['table', 'card', 'chart'] },
      {
        type: 'object',
        properties: {
          view: {
            type: 'string',
            enum: ['table', 'card', 'chart', 'chart-vega'],
            description: 'The built-in view (`chart-vega`: a Vega-Lite `spec`, a larger page of its own).',
          },
          spec: {
            type: 'object',
            description:
              'chart-vega: the Vega-Lite spec (mark, encoding, transforms…); its `data` is the rows.',
          },
          html: {
            type: 'string',
            minLength: 1,
            description: 'An HTML file of your own, relative to the manifest.',
          },
          title: { type: 'string', description: 'The heading the view shows (default: the tool title).' },
          rows: {
            type: 'string',
            description:
              'The key of structuredContent that holds the rows (default: `rows`, else the first list of objects).',
          },
          columns: {
            type: 'object',
            description: 'table: the columns shown, in order, each with its label and format (default: all).',
            additionalProperties: VIEW_COLUMN,
          },
          pageSize: {
            type: 'integer',
            minimum: 1,
            maximum: 1000,
            description: 'table: rows per page (default 25).',
          },
          fields: {
            description: 'card: the fields shown, in order, as a list or as `field: label` (default: all).',
            anyOf: [
              { type: 'array', items: { type: 'string' } },
              { type: 'object', additionalProperties: VIEW_COLUMN },
            ],
          },
          type: {
            type: 'string',
            enum: ['bar', 'line', 'area', 'scatter', 'pie'],
            description: 'chart: the mark (default bar).',
          },
          x: { type: 'string', description: 'chart: the field on the x axis (the slice label of a pie).' },
          y: {
            description: 'chart: the numeric field (or fields, one series each) on the y axis.',
            anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
          },
          series: {
            type: 'string',
            description: 'chart: the field whose values split the rows into series.',
          },
          sort: {
            type: 'string',
            enum: ['x', '-x', 'y', '-y'],
            description: 'chart: the order of the points (default: as returned).',
          },
          actions: {
            type: 'array',
            description:
              'Buttons that call a tool through the host: with an argument `"{{field}}"` a button on each row (that row\'s value; the result is shown as a card), else one in the toolbar (its rows replace the view\'s, for a refresh or the next page). The tool is usually one with `visibility: [app]`.',
            items: {
              type: 'object',
              properties: {
                tool: { type: 'string', minLength: 1 },
                label: { type: 'string', minLength: 1 },
                arguments: { type: 'object' },
              },
              required: ['tool', 'label'],
              additionalProperties: false,
            },
          },
          modelText: {
            type: 'string',
            enum: ['compact', 'full'],
            description:
              'What the model reads when the host shows the view: `compact` (default: the row count, the columns and the first rows) or `full` (the whole text, as for a client without views).',
          },
          visibility: {
            type: 'array',
            items: { type: 'string', enum: ['model', 'app'] },
            minItems: 1,
            uniqueItems: true,
            description:
              'Who may call the tool: `[model, app]` (default), `[app]` (only views: hidden from the model and from clients without views).',
          },
          csp: {
            type: 'object',
            description: 'Origins an `html` view may reach (default: none).',
            properties: {
              connectDomains: DOMAINS,
              resourceDomains: DOMAINS,
              frameDomains: DOMAINS,
              baseUriDomains: DOMAINS,
            },
            additionalProperties: false,
          },
          permissions: {
            type: 'array',
            items: { type: 'string', enum: ['camera', 'microphone', 'geolocation', 'clipboardWrite'] },
            uniqueItems: true,
            description: 'Browser permissions an `html` view asks the host for.',
          },
          domain: {
            type: 'string',
            minLength: 1,
            description: "A dedicated sandbox origin (the host's format).",
          },
          prefersBorder: { type: 'boolean', description: 'Whether the host draws a border around the view.' },
        },
        additionalProperties: false,
      },
    ],
  },
};

/**
 * `fromClaim:` on a prompt argument: its value comes from the caller's verified access token
 * (catalog/claims.ts); the client never sees or sets it. The catalog takes it out before the kind
 * compiles the entry.
 */
export const FROM_CLAIM_FIELD: Record<string, JsonSchema> = {
  fromClaim: {
    type: 'string',
    minLength: 1,
    description:
      "Take the value from this claim of the caller's verified OAuth access token (e.g. email): the argument is not listed to clients, a client may not pass it, and a request without the claim is refused (docs/security.md).",
  },
};

/**
 * `mirror:` on every resource and prompt: also serve it as a tool (catalog/mirror.ts), for clients
 * that only use tools. Overrides `server.mirror`.
 */
export const MIRROR_FIELDS: Record<string, JsonSchema> = {
  mirror: {
    description:
      "Also serve this entry as a tool, for clients that ignore resources and prompts (docs/clients.md): a resource as `read_<name>` (its template variables, or `uri`, as arguments; its contents as the result), a prompt as `get_prompt_<name>` (its arguments in, its messages out). `true`, `false` (overrides `server.mirror`), or the tool's own `name`, `title` and `description`.",
    anyOf: [
      { type: 'boolean' },
      {
        type: 'object',
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$', description: 'The tool name.' },
          title: { type: 'string', description: 'The tool title.' },
          description: { type: 'string', description: "The tool description (default: the entry's)." },
        },
        additionalProperties: false,
      },
    ],
  },
};

/** `limits:` on every resource entry and prompt (governance/limits/): rates and a cap per caller. */
export const READ_LIMITS_FIELDS: Record<string, JsonSchema> = {
  limits: limitsSchema('reads of this entry (every URI it serves together)'),
};

export const PROMPT_LIMITS_FIELDS: Record<string, JsonSchema> = {
  limits: limitsSchema('gets of this prompt'),
};

/**
 * `lint: { ignore: { CODE: reason } }`, on every tool, resource and prompt: silences a
 * `mcp-run lint` rule for this entry. The reason is required so the manifest says why.
 */
export const LINT_FIELDS: Record<string, JsonSchema> = {
  lint: {
    type: 'object',
    description: 'Settings of `mcp-run lint` for this entry (docs/lint.md).',
    properties: {
      ignore: {
        type: 'object',
        description:
          'Rules silenced for this entry, by code, each with the reason, e.g. `{ LINT_INPUT_UNUSED: "kept for old clients" }`.',
        propertyNames: { pattern: '^LINT_[A-Z_]+$' },
        additionalProperties: { type: 'string', minLength: 1 },
      },
    },
    additionalProperties: false,
  },
};

/** `policy:` on every tool, resource and prompt. */
export const POLICY_FIELDS: Record<string, JsonSchema> = {
  policy: POLICY_FIELD_SCHEMA as unknown as JsonSchema,
};

/** The built-in views (`ui: table`). */
export type ViewName = 'table' | 'card' | 'chart' | 'chart-vega';

/** A column or card field as `ui.columns` / `ui.fields` give it. */
export type ViewColumn =
  | string
  | {
      readonly label?: string;
      readonly format?: 'text' | 'number' | 'date' | 'currency' | 'link';
      readonly currency?: string;
    };

/** A button of a view that calls a tool (`ui.actions`). */
export interface ViewAction {
  readonly tool: string;
  readonly label: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
}

/** `ui:` as validated against UI_FIELD. */
export type UiField =
  | ViewName
  | {
      readonly view?: ViewName;
      readonly spec?: Readonly<Record<string, unknown>>;
      readonly html?: string;
      readonly title?: string;
      readonly rows?: string;
      readonly columns?: Readonly<Record<string, ViewColumn>>;
      readonly pageSize?: number;
      readonly fields?: readonly string[] | Readonly<Record<string, ViewColumn>>;
      readonly type?: 'bar' | 'line' | 'area' | 'scatter' | 'pie';
      readonly x?: string;
      readonly y?: string | readonly string[];
      readonly series?: string;
      readonly sort?: 'x' | '-x' | 'y' | '-y';
      readonly actions?: readonly ViewAction[];
      readonly modelText?: 'compact' | 'full';
      readonly visibility?: readonly ('model' | 'app')[];
      readonly csp?: Readonly<Record<string, readonly string[]>>;
      readonly permissions?: readonly ('camera' | 'microphone' | 'geolocation' | 'clipboardWrite')[];
      readonly domain?: string;
      readonly prefersBorder?: boolean;
    };
