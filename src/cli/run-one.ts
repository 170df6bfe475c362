/**
 * `mcp-run call`, `read`, `prompt` and `list`: one request through the real protocol core, printed
 * as a client would see it (`--raw` for the JSON result). Progress and logs go to stderr.
 * Exit codes: 0 success, 1 the manifest has errors or the request failed (a tool result with
 * isError included), 2 bad usage (an argument that does not parse).
 *
 * `call --task` runs the tool as a 2025-11-25 task: it prints the task id, follows the status
 * notifications, then waits in `tasks/result` for the end and prints the result as a direct call.
 */
import type { JsonSchema } from '../catalog/types.js';
import { suggest } from '../util/suggest.js';
import { type LocalClient, openLocalClient, RequestFailed } from './local-client.js';
import { formatContent, formatLists, formatToolResult, type Lists } from './print.js';

// biome-ignore lint/suspicious/noExplicitAny: protocol results are free-form JSON, read field by field for printing
type Json = Record<string, any>;

export interface ManifestOption {
  readonly manifest: string;
}
export interface RawOption {
  readonly raw?: boolean;
}

export async function callCommand(
  tool: string,
  options: ManifestOption & RawOption & { arg: string[]; json?: string; task?: boolean },
): Promise<void> {
  await withClient(options.manifest, async (client) => {
    const descriptor = client.catalog.tools.get(tool)?.descriptor;
    if (!descriptor) return unknown('tool', tool, client.catalog.tools.keys());
    const args = { ...parseJsonObject(options.json), ...parsePairs(options.arg, descriptor.inputSchema) };
    if (options.task) {
      if (descriptor.execution === undefined)
        throw new UsageError(
          `tool "${tool}" cannot run as a task (its task is forbidden); call it without --task`,
        );
      const created = await client.request('tools/call', { name: tool, arguments: args, task: {} });
      const taskId = (created.task as Json).taskId as string;
      process.stderr.write(`task ${taskId} started\n`);
      const result = await client.request('tasks/result', { taskId });
      print(result, options, () => formatToolResult(result));
      if (result.isError) process.exitCode = 1;
      return;
    }
    const result = await client.request('tools/call', {
      name: tool,
      arguments: args,
      _meta: { progressToken: 1 },
    });
    print(result, options, () => formatToolResult(result));
    if (result.isError) process.exitCode = 1;
  });
}

export async function readCommand(uri: string, options: ManifestOption & RawOption): Promise<void> {
  await withClient(options.manifest, async (client) => {
    const result = await client.request('resources/read', { uri });
    print(result, options, () =>
      (result.contents as Json[])
        .map((c) => c.text ?? `[${c.mimeType ?? 'binary'}, ${blobBytes(c.blob)} bytes]`)
        .join('\n'),
    );
  });
}

export async function promptCommand(
  name: string,
  options: ManifestOption & RawOption & { arg: string[] },
): Promise<void> {
  await withClient(options.manifest, async (client) => {
    if (!client.catalog.prompts.has(name)) return unknown('prompt', name, client.catalog.prompts.keys());
    const args = Object.fromEntries(options.arg.map(splitPair));
    const result = await client.request('prompts/get', { name, arguments: args });
    print(result, options, () =>
      (result.messages as Json[]).map((m) => `[${m.role}]\n${formatContent([m.content])}`).join('\n\n'),
    );
  });
}

export async function listCommand(manifest: string, options: { json?: boolean }): Promise<void> {
  await withClient(manifest, async (client) => {
    const lists: Lists = {
      tools: await listAll(client, 'tools/list', 'tools'),
      resources: await listAll(client, 'resources/list', 'resources'),
      resourceTemplates: await listAll(client, 'resources/templates/list', 'resourceTemplates'),
      prompts: await listAll(client, 'prompts/list', 'prompts'),
    };
    process.stdout.write(options.json ? `${JSON.stringify(lists, null, 2)}\n` : formatLists(lists));
  });
}

async function withClient(manifest: string, run: (client: LocalClient) => Promise<void>): Promise<void> {
  const client = await openLocalClient(manifest, showNotification);
  try {
    await run(client);
  } catch (err) {
    if (!(err instanceof RequestFailed || err instanceof UsageError)) throw err;
    process.stderr.write(`mcp-run: ${client.log.redact(err.message)}\n`);
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
  if (message.method === 'notifications/progress') {
    const total = params.total === undefined ? '' : `/${params.total}`;
    process.stderr.write(
      `progress ${params.progress}${total}${params.message ? ` ${params.message}` : ''}\n`,
    );
  } else if (message.method === 'notifications/tasks/status') {
    const note = params.statusMessage ? ` ${params.statusMessage}` : '';
    process.stderr.write(`task ${params.taskId}: ${params.status}${note}\n`);
  } else if (message.method === 'notifications/message') {
    const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    process.stderr.write(`[${params.level}] ${data}\n`);
  }
}

function print(result: Json, options: RawOption, readable: () => string): void {
  process.stdout.write(options.raw ? `${JSON.stringify(result, null, 2)}\n` : `${readable()}\n`);
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

/** `--arg k=v` values typed by the tool's input schema: `limit=5` is the number 5 when limit is an integer. */
function parsePairs(pairs: readonly string[], schema: JsonSchema): Json {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const args: Json = {};
  for (const [name, text] of pairs.map(splitPair)) {
    const type = properties[name]?.type;
    args[name] = type === undefined || type === 'string' ? text : parseTyped(name, text);
  }
  return args;
}

function parseTyped(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--arg ${name}=${text}: the value is not valid JSON for a non-string argument`);
  }
}

function parseJsonObject(text: string | undefined): Json {
  if (text === undefined) return {};
  const value = parseTyped('--json', text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('--json takes a JSON object of arguments, e.g. --json \'{"limit": 5}\'');
  }
  return value as Json;
}

function blobBytes(blob: unknown): number {
  return typeof blob === 'string' ? Buffer.byteLength(blob, 'base64') : 0;
}
