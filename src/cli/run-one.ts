/**
 * `mcp-run call`, `read`, `prompt` and `list`: one request through the real protocol core, printed
 * as a client would see it (`--raw` for the JSON result). Progress and logs go to stderr.
 * Exit codes: 0 success, 1 the manifest has errors or the request failed (a tool result with
 * isError included), 2 bad usage (an argument that does not parse).
 *
 * `call --task` runs the tool as a 2025-11-25 task: it prints the task id, follows the status
 * notifications, then waits in `tasks/result` for the end and prints the result as a direct call.
 *
 * What a tool returns, a resource holds or a log line says comes from outside mcp-run (an upstream
 * API, a command, a file, an imported description): everything shown to a person goes through
 * `escapeControls`; `--raw` and `--json` print the JSON as it is.
 */
import type { JsonSchema } from '../catalog/types.js';
import { suggest } from '../util/suggest.js';
import { type LocalClient, type LocalClientOptions, openLocalClient, RequestFailed } from './local-client.js';
import { escapeControls, formatContent, formatLists, formatToolResult, type Lists } from './print.js';

// biome-ignore lint/suspicious/noExplicitAny: protocol results are free-form JSON, read field by field for printing
type Json = Record<string, any>;

export interface ManifestOption {
  readonly manifest: string;
}
export interface RawOption {
  readonly raw?: boolean;
}
/** `--toolset`, repeatable: what a client of those toolsets sees (cli/toolset-arg.ts). */
export interface ToolsetOption {
  readonly toolset?: readonly string[];
}

const viewOf = (options: ToolsetOption): LocalClientOptions =>
  options.toolset === undefined ? {} : { toolsets: options.toolset };

/**
 * `call`: log messages sent during the call are held and printed before the result, without those
 * the result already shows (a failed shell tool's stderr is both logged and in its error text: it
 * is printed once). Progress is printed as it comes. With `--yes` the client declares elicitation
 * and answers a confirm step (a question with no fields) with accept; a question with fields (an
 * `ask` step) is declined: the command line has no form to fill.
 */
export async function callCommand(
  tool: string,
  options: ManifestOption &
    RawOption &
    ToolsetOption & { arg: string[]; json?: string; yes?: boolean; task?: boolean },
): Promise<void> {
  const logs: Json[] = [];
  const clientOptions = {
    ...viewOf(options),
    ...(options.yes && { capabilities: { elicitation: { form: {} } }, answer: confirmFromCli }),
  };
  const onMessage = (message: Json) =>
    message.method === 'notifications/message' ? logs.push(message) : showNotification(message);
  // Held logs, printed before the result (or the error), less those the result's text already shows.
  const flushLogs = (shown: string) => {
    for (const message of logs.splice(0)) {
      const data = logData(message);
      if (!data.split('\n').every((line) => line === '' || shown.includes(line))) showNotification(message);
    }
  };
  await withClient(
    options.manifest,
    async (client) => {
      const descriptor = client.catalog.tools.get(tool)?.descriptor;
      if (!descriptor) return unknown('tool', tool, client.catalog.tools.keys());
      const args = { ...parseJsonObject(options.json), ...parsePairs(options.arg, descriptor.inputSchema) };
      let result: Json;
      try {
        result = options.task
          ? await runAsTask(client, tool, args, descriptor.execution !== undefined)
          : await client.request('tools/call', { name: tool, arguments: args, _meta: { progressToken: 1 } });
      } catch (err) {
        flushLogs('');
        throw err;
      }
      const text = formatToolResult(result);
      flushLogs(text);
      print(result, options, () => text);
      if (result.isError) process.exitCode = 1;
      if (result.isError && !options.yes && /did not declare elicitation/.test(text))
        process.stderr.write('mcp-run: a confirm step is answered from the command line with --yes\n');
    },
    onMessage,
    clientOptions,
  );
}

/** `--task`: starts the call as a task, says its id on stderr, and waits for its result. */
async function runAsTask(client: LocalClient, tool: string, args: Json, taskable: boolean): Promise<Json> {
  if (!taskable)
    throw new UsageError(
      `tool "${tool}" cannot run as a task (its task is forbidden); call it without --task`,
    );
  const created = await client.request('tools/call', { name: tool, arguments: args, task: {} });
  const taskId = (created.task as Json).taskId as string;
  process.stderr.write(`task ${escapeControls(taskId)} started\n`);
  return client.request('tasks/result', { taskId });
}

/** `--yes`: a confirmation (no fields to fill) is accepted and said on stderr; anything else is declined. */
function confirmFromCli(method: string, params: Json): Json | undefined {
  if (method !== 'elicitation/create') return undefined;
  const fields = Object.keys((params.requestedSchema?.properties ?? {}) as Json);
  if (fields.length > 0) {
    process.stderr.write(
      `mcp-run: declined a question with fields (${escapeControls(fields.join(', '))}): --yes answers confirmations only\n`,
    );
    return { action: 'decline' };
  }
  process.stderr.write(`confirmed (--yes): ${escapeControls(String(params.message))}\n`);
  return { action: 'accept', content: {} };
}

export async function readCommand(
  uri: string,
  options: ManifestOption & RawOption & ToolsetOption,
): Promise<void> {
  await withClient(
    options.manifest,
    async (client) => {
      const result = await client.request('resources/read', { uri });
      print(result, options, () =>
        (result.contents as Json[])
          .map((c) => c.text ?? `[${c.mimeType ?? 'binary'}, ${blobBytes(c.blob)} bytes]`)
          .join('\n'),
      );
    },
    showNotification,
    viewOf(options),
  );
}

export async function promptCommand(
  name: string,
  options: ManifestOption & RawOption & ToolsetOption & { arg: string[] },
): Promise<void> {
  await withClient(
    options.manifest,
    async (client) => {
      if (!client.catalog.prompts.has(name)) return unknown('prompt', name, client.catalog.prompts.keys());
      const args = Object.fromEntries(options.arg.map(splitPair));
      const result = await client.request('prompts/get', { name, arguments: args });
      print(result, options, () =>
        (result.messages as Json[]).map((m) => `[${m.role}]\n${formatContent([m.content])}`).join('\n\n'),
      );
    },
    showNotification,
    viewOf(options),
  );
}

export async function listCommand(
  manifest: string,
  options: ToolsetOption & { json?: boolean },
): Promise<void> {
  await withClient(
    manifest,
    async (client) => {
      const lists: Lists = {
        tools: await listAll(client, 'tools/list', 'tools'),
        resources: await listAll(client, 'resources/list', 'resources'),
        resourceTemplates: await listAll(client, 'resources/templates/list', 'resourceTemplates'),
        prompts: await listAll(client, 'prompts/list', 'prompts'),
      };
      process.stdout.write(
        options.json ? `${JSON.stringify(lists, null, 2)}\n` : escapeControls(formatLists(lists)),
      );
    },
    showNotification,
    viewOf(options),
  );
}

async function withClient(
  manifest: string,
  run: (client: LocalClient) => Promise<void>,
  onNotification: (message: Json) => void = showNotification,
  clientOptions: LocalClientOptions = {},
): Promise<void> {
  const client = await openLocalClient(manifest, onNotification, clientOptions);
  try {
    await run(client);
  } catch (err) {
    if (!(err instanceof RequestFailed || err instanceof UsageError)) throw err;
    process.stderr.write(`mcp-run: ${escapeControls(client.log.redact(err.message))}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  } finally {
    await client.close();
  }
}

async function listAll(client: LocalClient, method: string, key: string): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(method, cursor === undefined ? {} : { cursor });
    items.push(...(page[key] as Json[]));
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return items;
}

function showNotification(message: Json): void {
  const params = (message.params ?? {}) as Json;
  const show = (line: string) => process.stderr.write(`${escapeControls(line)}\n`);
  if (message.method === 'notifications/progress') {
    const total = params.total === undefined ? '' : `/${params.total}`;
    show(`progress ${params.progress}${total}${params.message ? ` ${params.message}` : ''}`);
  } else if (message.method === 'notifications/tasks/status') {
    const note = params.statusMessage ? ` ${params.statusMessage}` : '';
    show(`task ${params.taskId}: ${params.status}${note}`);
  } else if (message.method === 'notifications/message') {
    show(`[${params.level}] ${logData(message)}`);
  }
}

function logData(message: Json): string {
  const data = message.params?.data;
  return typeof data === 'string' ? data : JSON.stringify(data);
}

function print(result: Json, options: RawOption, readable: () => string): void {
  process.stdout.write(
    options.raw ? `${JSON.stringify(result, null, 2)}\n` : `${escapeControls(readable())}\n`,
  );
}

class UsageError extends Error {}

function unknown(what: string, name: string, known: Iterable<string>): never {
  const names = [...known];
  const hint = suggest(name, names);
  throw new RequestFailed(
    -32602,
    `no ${what} named "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; ${names.length ? `known: ${names.join(', ')}` : `the manifest has no ${what}s`}`,
  );
}

function splitPair(pair: string): [string, string] {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new UsageError(`--arg takes name=value, got "${pair}"`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}

/**
 * `--arg k=v` values typed by the tool's input schema: `limit=5` is the number 5 when limit is an
 * integer. An array argument takes three forms: repeated (`--arg tags=a --arg tags=b`), a comma
 * list (`tags=a,b`) or a JSON list (`tags='["a,b", "c"]'`); its items are typed by `items`.
 */
function parsePairs(pairs: readonly string[], schema: JsonSchema): Json {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const args: Json = {};
  for (const [name, text] of pairs.map(splitPair)) {
    const property = properties[name];
    if (types(property).includes('array')) {
      args[name] = [...((args[name] as unknown[] | undefined) ?? []), ...parseList(name, text, property!)];
      continue;
    }
    if (name in args) throw new UsageError(`--arg ${name} is given twice; it takes one value`);
    args[name] = parseScalar(name, text, property);
  }
  return args;
}

const types = (schema: JsonSchema | undefined): unknown[] =>
  schema?.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

function parseScalar(name: string, text: string, schema: JsonSchema | undefined): unknown {
  const t = types(schema);
  if (t.length === 0 || (t.length === 1 && t[0] === 'string')) return text;
  try {
    return JSON.parse(text);
  } catch {
    if (t.includes('string')) return text;
    throw new UsageError(
      `--arg ${name}=${text}: ${name} is ${t.join(' or ')}, and the value is not one (e.g. --arg ${name}=${example(t[0])})`,
    );
  }
}

function parseList(name: string, text: string, schema: JsonSchema): unknown[] {
  const forms = `give --arg ${name}=a --arg ${name}=b, --arg ${name}=a,b, or --arg ${name}='["a","b"]'`;
  if (text.trimStart().startsWith('[')) {
    try {
      const list = JSON.parse(text);
      if (Array.isArray(list)) return list;
    } catch {}
    throw new UsageError(`--arg ${name}=${text}: not a JSON list; ${name} is an array: ${forms}`);
  }
  const item = schema.items as JsonSchema | undefined;
  return text.split(',').map((part) => {
    try {
      return parseScalar(name, part.trim(), item);
    } catch {
      throw new UsageError(
        `--arg ${name}=${text}: "${part}" is not ${types(item).join(' or ')}; ${name} is an array: ${forms}`,
      );
    }
  });
}

function example(type: unknown): string {
  return type === 'integer' || type === 'number'
    ? '5'
    : type === 'boolean'
      ? 'true'
      : type === 'object'
        ? '\'{"k":1}\''
        : 'null';
}

function parseJsonObject(text: string | undefined): Json {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('--json takes a JSON object of arguments, e.g. --json \'{"limit": 5}\'');
  }
  return value as Json;
}

function blobBytes(blob: unknown): number {
  return typeof blob === 'string' ? Buffer.byteLength(blob, 'base64') : 0;
}
