/**
 * The playground's session: its MCP client (connecting, the era switch, following list changes),
 * the dev event stream (reload outcomes), and the actions the views start (calls, reads, gets).
 */
import { Cancelled, type Era, type Json, McpClient, RpcError, readSse } from './mcp.js';
import { type Kind, keyOf, MAX_LOGS, MAX_TRACE, type Run, store, update } from './store.js';

function newClient(era: Era): McpClient {
  return new McpClient(era, store.dev?.mcpPath ?? '/mcp', {
    trace: (entry) => {
      store.trace.push(entry);
      if (store.trace.length > MAX_TRACE) store.trace.splice(0, store.trace.length - MAX_TRACE);
      update();
    },
    notification: (m) => {
      if (m.method === 'notifications/message') {
        store.logs.push({
          at: new Date().toISOString(),
          level: m.params?.level,
          logger: m.params?.logger,
          data: m.params?.data,
        });
        if (store.logs.length > MAX_LOGS) store.logs.shift();
        update();
      } else if (m.method === 'notifications/tools/list_changed') void refresh(['tools']);
      else if (m.method === 'notifications/prompts/list_changed') void refresh(['prompts']);
      // A skill is served as resources: a change to one is a resources change (no notice of its own).
      else if (m.method === 'notifications/resources/list_changed')
        void refresh(['resources', 'templates', 'skills']);
    },
    ask: (method, p) =>
      new Promise((resolve, reject) => {
        store.asks.push({ method, params: p, resolve, reject });
        update();
      }),
  });
}

const LISTS = {
  tools: ['tools/list', 'tools'],
  resources: ['resources/list', 'resources'],
  templates: ['resources/templates/list', 'resourceTemplates'],
  prompts: ['prompts/list', 'prompts'],
  skills: ['skills/list', 'skills'],
} as const;
type ListName = keyof typeof LISTS;

/** The skills extension's identifier, under which a server declares it in its capabilities. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

function capable(client: McpClient, list: ListName): boolean {
  const c = client.capabilities ?? {};
  if (list === 'skills') return !!c.extensions?.[SKILLS_EXTENSION];
  return list === 'tools' ? !!c.tools : list === 'prompts' ? !!c.prompts : !!c.resources;
}

/** Every page of one list, synchronously (the first paint) or not. */
async function listAll(client: McpClient, list: ListName, sync: boolean): Promise<Json[]> {
  const [method, field] = LISTS[list];
  const items: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const p = cursor === undefined ? {} : { cursor };
    const result = sync ? client.requestSync(method, p) : await client.request(method, p);
    items.push(...(result?.[field] ?? []));
    cursor = result?.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

function setList(client: McpClient, list: ListName, items: Json[]): string {
  const kinds: Record<ListName, Kind> = {
    tools: 'tool',
    prompts: 'prompt',
    resources: 'resource',
    templates: 'template',
    skills: 'skill',
  };
  const kind = kinds[list];
  const before = new Set(store.catalog[list].map((x) => keyOf(kind, x)));
  const after = new Set(items.map((x) => keyOf(kind, x)));
  store.catalog[list] = items;
  if (list === 'tools') client.toolSchemas = new Map(items.map((t) => [t.name, t.inputSchema]));
  const added = [...after].filter((k) => !before.has(k));
  const removed = [...before].filter((k) => !after.has(k));
  return [...added.map((k) => `+${k}`), ...removed.map((k) => `-${k}`)].join(', ');
}

async function refresh(lists: ListName[]): Promise<void> {
  const client = store.client;
  if (!client) return;
  const changes: string[] = [];
  for (const list of lists) {
    if (!capable(client, list)) continue;
    try {
      const names = setList(client, list, await listAll(client, list, false));
      if (names) changes.push(`${list}: ${names}`);
    } catch (err) {
      store.failure = `${LISTS[list][0]} failed: ${(err as Error).message}`;
    }
  }
  if (changes.length > 0 && store.reload?.ok) store.reload = { ...store.reload, names: changes.join('; ') };
  else if (changes.length > 0)
    store.reload = {
      ok: true,
      at: new Date().toISOString(),
      summary: 'lists changed',
      names: changes.join('; '),
    };
  update();
}

/** Connects in `era` and reads the whole catalog, synchronously: the first paint lists it. */
export function connectSync(era: Era): void {
  const client = newClient(era);
  store.client = client;
  store.era = era;
  store.failure = undefined;
  try {
    client.connectSync();
    for (const list of Object.keys(LISTS) as ListName[])
      if (capable(client, list))
        void listAll(client, list, true).then((items) => setList(client, list, items));
  } catch (err) {
    store.failure = `cannot connect in the ${era} era: ${(err as Error).message}`;
  }
  client.startStreams();
}

export async function switchEra(era: Era): Promise<void> {
  if (era === store.era) return;
  for (const run of store.runs.values()) run.abort.abort();
  await store.client?.close();
  localStorage.setItem('mcp-run-dev-era', era);
  const url = new URL(location.href);
  url.searchParams.set('era', era);
  history.replaceState(null, '', url);
  store.catalog = { tools: [], resources: [], templates: [], prompts: [], skills: [] };
  store.outcomes.clear();
  connectSync(era);
  // The synchronous lists resolved their promises; let them land before painting.
  await Promise.resolve();
  update();
}

/** The dev event stream: the manifest's name and each reload's outcome. */
export async function followDevEvents(): Promise<void> {
  for (;;) {
    try {
      const res = await fetch('/_dev/events', { headers: { Accept: 'text/event-stream' } });
      if (res.body)
        await readSse(res.body, (e) => {
          const data = JSON.parse(e.data || 'null');
          if (e.event === 'hello') {
            store.dev = { manifest: data.manifest, folder: data.folder, mcpPath: data.mcpPath };
            // A failed reload before the page connected still holds (its errors are the file's
            // now); a good one is over: the badge says "reloaded" only for reloads this page saw.
            if (data.last && !data.last.ok) store.reload = data.last;
          } else if (e.event === 'reload') store.reload = data;
          update();
          return false;
        });
    } catch {
      // The server restarted: try again below.
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

// ---- actions ----

export async function callTool(tool: Json, args: Json): Promise<void> {
  const client = store.client!;
  const run: Run = { abort: new AbortController() };
  store.runs.set(tool.name, run);
  store.outcomes.set(`tool:${tool.name}`, { args });
  update();
  try {
    const result = await client.request(
      'tools/call',
      { name: tool.name, arguments: args ?? {} },
      {
        signal: run.abort.signal,
        onProgress: (value, total, message) => {
          run.progress = {
            value,
            ...(total !== undefined && { total }),
            ...(message !== undefined && { message }),
          };
          update();
        },
      },
    );
    store.outcomes.set(`tool:${tool.name}`, { result, args });
  } catch (err) {
    store.outcomes.set(
      `tool:${tool.name}`,
      err instanceof Cancelled ? { cancelled: true, args } : { error: describe(err), args },
    );
  } finally {
    store.runs.delete(tool.name);
    update();
  }
}

export async function perform(key: string, method: string, p: Json): Promise<void> {
  store.outcomes.set(key, {});
  update();
  try {
    store.outcomes.set(key, { result: await store.client!.request(method, p) });
  } catch (err) {
    store.outcomes.set(key, { error: describe(err) });
  }
  update();
}

export function readResource(uri: string): void {
  store.selected = { kind: 'resource', key: uri };
  void perform(`resource:${uri}`, 'resources/read', { uri });
}

/**
 * The values the server offers for a prompt argument: `completion/complete` with an empty value.
 * MCP's prompt descriptor has no schema, so this is how a client learns a manifest argument's
 * `enum` (and its `complete` suggestions: the answer does not tell the two apart). Undefined when
 * the server does not complete, offers nothing, or offers more than one answer holds.
 */
export async function offeredValues(prompt: string, argument: string): Promise<string[] | undefined> {
  const client = store.client;
  if (!client?.capabilities?.completions) return undefined;
  try {
    const { completion } = await client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: prompt },
      argument: { name: argument, value: '' },
    });
    const values = completion?.values;
    return Array.isArray(values) && values.length > 0 && !completion.hasMore ? values : undefined;
  } catch {
    // The trace shows the error; the field stays a text field.
    return undefined;
  }
}

export const describe = (err: unknown): string =>
  err instanceof RpcError
    ? `JSON-RPC error ${err.code}: ${err.message}${err.data === undefined ? '' : ` ${JSON.stringify(err.data)}`}`
    : (err as Error).message;
