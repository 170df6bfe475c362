/**
 * The `mcp-run dev` playground: a client of this origin's MCP endpoint. It lists the catalog,
 * builds a form per tool, shows results as a client sees them, answers the server's questions in
 * dialogs, traces every message, follows live reloads (list changes over MCP, reload outcomes over
 * the dev event stream) and speaks either protocol era. docs/dev.md describes it.
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { estimateJsonTokens } from '../src/lint/estimate.js';
import {
  Cancelled,
  ERAS,
  type Era,
  type Json,
  McpClient,
  RpcError,
  readSse,
  type TraceEntry,
} from './mcp.js';
import { PromptMessages, ResourceContents, ToolResult, Tree } from './result.js';
import { type FieldErrors, initialValue, SchemaForm, validate } from './schema-form.js';

// ---- the store: one mutable object, one re-render per change ----

type Kind = 'tool' | 'resource' | 'template' | 'prompt';
interface Catalog {
  tools: Json[];
  resources: Json[];
  templates: Json[];
  prompts: Json[];
}
interface Outcome {
  result?: Json;
  error?: string;
  cancelled?: boolean;
  /** The arguments it was called with (for the copy buttons). */
  args?: Json;
}
interface Run {
  abort: AbortController;
  progress?: { value: number; total?: number; message?: string };
}
interface Ask {
  method: string;
  params: Json;
  resolve: (result: Json) => void;
  reject: (err: Error) => void;
}
interface Reload {
  ok: boolean;
  at: string;
  summary: string;
  errors?: Json[];
  /** The names the page saw come and go with this reload. */
  names?: string;
}
interface DevInfo {
  manifest: string;
  folder: string;
  mcpPath: string;
}

const MAX_TRACE = 2000;
const MAX_LOGS = 500;
const params = new URLSearchParams(location.search);
const storedEra = params.get('era') ?? localStorage.getItem('mcp-run-dev-era');

const store = {
  era: (ERAS.includes(storedEra as Era) ? storedEra : '2025-11-25') as Era,
  client: undefined as McpClient | undefined,
  catalog: { tools: [], resources: [], templates: [], prompts: [] } as Catalog,
  failure: undefined as string | undefined,
  selected: undefined as { kind: Kind; key: string } | undefined,
  search: '',
  trace: [] as TraceEntry[],
  logs: [] as { at: string; level: string; logger?: string; data: Json }[],
  outcomes: new Map<string, Outcome>(),
  runs: new Map<string, Run>(),
  asks: [] as Ask[],
  reload: undefined as Reload | undefined,
  dev: undefined as DevInfo | undefined,
  panel: 'trace' as 'trace' | 'logs' | 'reload',
};
let rerender: () => void = () => undefined;
const update = () => rerender();

const keyOf = (kind: Kind, item: Json): string =>
  kind === 'resource' ? item.uri : kind === 'template' ? item.uriTemplate : item.name;

// ---- the client's life ----

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
      else if (m.method === 'notifications/resources/list_changed') void refresh(['resources', 'templates']);
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
} as const;
type ListName = keyof typeof LISTS;

function capable(client: McpClient, list: ListName): boolean {
  const c = client.capabilities ?? {};
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
  const kind: Kind =
    list === 'tools'
      ? 'tool'
      : list === 'prompts'
        ? 'prompt'
        : list === 'resources'
          ? 'resource'
          : 'template';
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
function connectSync(era: Era): void {
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

async function switchEra(era: Era): Promise<void> {
  if (era === store.era) return;
  for (const run of store.runs.values()) run.abort.abort();
  await store.client?.close();
  localStorage.setItem('mcp-run-dev-era', era);
  const url = new URL(location.href);
  url.searchParams.set('era', era);
  history.replaceState(null, '', url);
  store.catalog = { tools: [], resources: [], templates: [], prompts: [] };
  store.outcomes.clear();
  connectSync(era);
  // The synchronous lists resolved their promises; let them land before painting.
  await Promise.resolve();
  update();
}

/** The dev event stream: the manifest's name and each reload's outcome. */
async function followDevEvents(): Promise<void> {
  for (;;) {
    try {
      const res = await fetch('/_dev/events', { headers: { Accept: 'text/event-stream' } });
      if (res.body)
        await readSse(res.body, (e) => {
          const data = JSON.parse(e.data || 'null');
          if (e.event === 'hello') {
            store.dev = { manifest: data.manifest, folder: data.folder, mcpPath: data.mcpPath };
            if (data.last) store.reload = data.last;
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

async function callTool(tool: Json, args: Json): Promise<void> {
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

async function perform(key: string, method: string, p: Json): Promise<void> {
  store.outcomes.set(key, {});
  update();
  try {
    store.outcomes.set(key, { result: await store.client!.request(method, p) });
  } catch (err) {
    store.outcomes.set(key, { error: describe(err) });
  }
  update();
}

function readResource(uri: string): void {
  store.selected = { kind: 'resource', key: uri };
  void perform(`resource:${uri}`, 'resources/read', { uri });
}

const describe = (err: unknown): string =>
  err instanceof RpcError
    ? `JSON-RPC error ${err.code}: ${err.message}${err.data === undefined ? '' : ` ${JSON.stringify(err.data)}`}`
    : (err as Error).message;

// ---- copying ----

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function asCallCommand(entry: TraceEntry, manifest: string | undefined): string {
  const p = entry.message.params ?? {};
  const parts = ['mcp-run', 'call', shellQuote(p.name)];
  if (manifest) parts.push(shellQuote(manifest));
  parts.push('--json', shellQuote(JSON.stringify(p.arguments ?? {})));
  return parts.join(' ');
}

export function asCurl(entry: TraceEntry): string {
  const url = new URL(store.dev?.mcpPath ?? '/mcp', location.href).href;
  const headers = Object.entries(entry.headers ?? {}).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`);
  return [
    'curl',
    '-sS',
    '-N',
    '-X',
    'POST',
    shellQuote(url),
    ...headers,
    '--data',
    shellQuote(JSON.stringify(entry.message)),
  ].join(' ');
}

// ---- the page ----

function App() {
  const [, setTick] = useState(0);
  rerender = () => setTick((n) => n + 1);
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (
        e.key === '/' &&
        !(e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement)
      ) {
        e.preventDefault();
        search.current?.focus();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  const client = store.client;
  const name = client?.serverInfo?.name ?? 'MCP server';
  return (
    <div class="app">
      <header>
        <h1>
          mcp-run dev <span class="muted">·</span> <span data-testid="server-name">{name}</span>
          {client?.serverInfo?.version && <span class="muted"> {client.serverInfo.version}</span>}
        </h1>
        <div class="era">
          <label for="era">Protocol era</label>
          <select
            id="era"
            value={store.era}
            onChange={(e) => void switchEra((e.currentTarget as HTMLSelectElement).value as Era)}
          >
            <option value="2025-11-25">2025-11-25 (initialize, Mcp-Session-Id, GET stream)</option>
            <option value="2026-07-28">2026-07-28 (stateless: _meta envelope, listen, input_required)</option>
          </select>
        </div>
        <ReloadBadge />
      </header>
      {store.failure && (
        <p class="banner error" role="alert">
          {store.failure}
        </p>
      )}
      {store.reload && !store.reload.ok && <ReloadErrors reload={store.reload} />}
      <div class="columns">
        <nav aria-label="catalog">
          <label for="search" class="visually-hidden">
            Search the catalog
          </label>
          <input
            id="search"
            ref={search}
            type="search"
            placeholder="Search (press /)"
            value={store.search}
            onInput={(e) => {
              store.search = (e.currentTarget as HTMLInputElement).value;
              update();
            }}
          />
          <CatalogList />
        </nav>
        <main>
          <Detail />
        </main>
      </div>
      <Panels />
      {store.asks[0] && <AskDialog ask={store.asks[0]} key={String(store.asks.length)} />}
    </div>
  );
}

function ReloadBadge() {
  const r = store.reload;
  if (!r)
    return (
      <span class="badge" data-testid="reload-status">
        watching {store.dev ? short(store.dev.manifest) : ''}
      </span>
    );
  return (
    <span class={`badge ${r.ok ? 'ok' : 'bad'}`} data-testid="reload-status" role="status">
      {r.ok ? `reloaded: ${r.summary}${r.names ? ` (${r.names})` : ''}` : r.summary}
    </span>
  );
}

const short = (path: string) => path.split('/').pop() ?? path;

function ReloadErrors(props: { readonly reload: Reload }) {
  return (
    <section class="banner error" role="alert" aria-label="reload errors" data-testid="reload-errors">
      <strong>{props.reload.summary}</strong>
      {(props.reload.errors ?? []).map((d, i) => (
        <div class="diagnostic" key={String(i)}>
          <div>
            <code>
              {d.file}
              {d.line !== undefined ? `:${d.line}:${d.col ?? 1}` : ''}
            </code>{' '}
            <span class="badge bad">{d.code}</span> {d.path && <code>{d.path}</code>} {d.message}
          </div>
          {d.frame && <pre class="frame">{d.frame}</pre>}
          {d.hint && <div class="muted">hint: {d.hint}</div>}
        </div>
      ))}
    </section>
  );
}

function matches(item: Json, kind: Kind): boolean {
  const q = store.search.trim().toLowerCase();
  if (!q) return true;
  return [keyOf(kind, item), item.title, item.description, item.name].some(
    (s) => typeof s === 'string' && s.toLowerCase().includes(q),
  );
}

function CatalogList() {
  const c = store.catalog;
  const total = c.tools.length > 0 ? estimateJsonTokens({ tools: c.tools }) : 0;
  const group = (kind: Kind, title: string, items: Json[], extra?: string) => (
    <section class="group" aria-label={title}>
      <h2>
        {title} <span class="muted">{items.length}</span>
        {extra && (
          <span class="muted tokens" data-testid="tools-tokens">
            {' '}
            {extra}
          </span>
        )}
      </h2>
      <ul>
        {items
          .filter((x) => matches(x, kind))
          .map((x) => {
            const key = keyOf(kind, x);
            const selected = store.selected?.kind === kind && store.selected.key === key;
            return (
              <li key={key}>
                <button
                  type="button"
                  class={`item${selected ? ' selected' : ''}`}
                  aria-current={selected || undefined}
                  data-testid={`${kind}-item`}
                  onClick={() => {
                    store.selected = { kind, key };
                    update();
                  }}
                >
                  <span class="name">{kind === 'resource' ? (x.name ?? x.uri) : key}</span>
                  {kind === 'tool' && <span class="muted tokens">~{estimateJsonTokens(x)} tok</span>}
                  {x.title && <span class="muted title">{x.title}</span>}
                </button>
              </li>
            );
          })}
      </ul>
    </section>
  );
  return (
    <div class="catalog" data-testid="catalog">
      {group('tool', 'Tools', c.tools, c.tools.length ? `~${total} tokens in tools/list` : undefined)}
      {group('resource', 'Resources', c.resources)}
      {group('template', 'Resource templates', c.templates)}
      {group('prompt', 'Prompts', c.prompts)}
    </div>
  );
}

function Detail() {
  const s = store.selected;
  if (!s) return <Overview />;
  const list = {
    tool: store.catalog.tools,
    resource: store.catalog.resources,
    template: store.catalog.templates,
    prompt: store.catalog.prompts,
  }[s.kind];
  const item = list.find((x) => keyOf(s.kind, x) === s.key);
  if (!item) {
    if (s.kind === 'resource') return <ResourceView item={{ uri: s.key }} />;
    return <p class="muted">{s.key} is no longer served (the manifest changed).</p>;
  }
  if (s.kind === 'tool') return <ToolView tool={item} key={s.key} />;
  if (s.kind === 'resource') return <ResourceView item={item} key={s.key} />;
  if (s.kind === 'template') return <TemplateView item={item} key={s.key} />;
  return <PromptView prompt={item} key={s.key} />;
}

function Overview() {
  const c = store.client;
  return (
    <section>
      <h2>{c?.serverInfo?.title ?? c?.serverInfo?.name ?? 'Server'}</h2>
      {c?.instructions && <p class="instructions">{c.instructions}</p>}
      <p class="muted">
        Pick a tool, resource, template or prompt on the left to try it. This page is an MCP client of{' '}
        <code>{store.dev?.mcpPath ?? '/mcp'}</code> on this origin, speaking the {store.era} era.
      </p>
      {store.dev && (
        <p class="muted">
          Manifest: <code>{store.dev.manifest}</code> (edit it: the page follows)
        </p>
      )}
      <details>
        <summary>Server capabilities</summary>
        <Tree value={c?.capabilities ?? {}} />
      </details>
    </section>
  );
}

function Header(props: { readonly item: Json; readonly name: string }) {
  const a = props.item.annotations ?? {};
  return (
    <>
      <h2>
        {props.name}
        {props.item.title && <span class="muted"> · {props.item.title}</span>}
      </h2>
      {props.item.description && <p class="description">{props.item.description}</p>}
      {Object.keys(a).length > 0 && (
        <p class="annotations">
          <span class="visually-hidden">annotations: </span>
          {Object.entries(a).map(([k, v]) => (
            <span class="badge" key={k}>
              {k}: {JSON.stringify(v)}
            </span>
          ))}
        </p>
      )}
    </>
  );
}

function ToolView(props: { readonly tool: Json }) {
  const tool = props.tool;
  const [value, setValue] = useState<Json>(() => initialValue(tool.inputSchema ?? {}) ?? {});
  const [errors, setErrors] = useState<FieldErrors>(new Map());
  const [tried, setTried] = useState(false);
  const run = store.runs.get(tool.name);
  const outcome = store.outcomes.get(`tool:${tool.name}`);
  const change = (v: Json) => {
    setValue(v);
    if (tried) setErrors(validate(tool.inputSchema, v ?? {}));
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const args = value ?? {};
    const found = validate(tool.inputSchema, args);
    setErrors(found);
    setTried(true);
    if (found.size === 0) void callTool(tool, args);
  };
  return (
    <section data-testid="tool-view">
      <Header item={tool} name={tool.name} />
      <p class="muted tokens">~{estimateJsonTokens(tool)} tokens in tools/list</p>
      <details>
        <summary>Input schema</summary>
        <pre class="schema">{JSON.stringify(tool.inputSchema, null, 2)}</pre>
      </details>
      {tool.outputSchema && (
        <details>
          <summary>Output schema</summary>
          <pre class="schema">{JSON.stringify(tool.outputSchema, null, 2)}</pre>
        </details>
      )}
      <form onSubmit={submit} aria-label={`call ${tool.name}`} noValidate>
        <h3>Try it</h3>
        <SchemaForm
          id={`f-${tool.name}`}
          schema={tool.inputSchema}
          value={value}
          errors={errors}
          onChange={change}
        />
        {errors.size > 0 && (
          <p class="field-error" role="alert" data-testid="form-errors">
            Not sent: {[...errors].map(([path, m]) => `${path || '(arguments)'} ${m.join('; ')}`).join(' · ')}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={run !== undefined}>
            Call {tool.name}
          </button>
          {run && (
            <button type="button" class="danger" onClick={() => run.abort.abort()}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {run && (
        <div class="running" role="status">
          {run.progress ? (
            <>
              <label for="call-progress">{run.progress.message ?? 'progress'}</label>{' '}
              <progress
                id="call-progress"
                data-testid="progress"
                value={run.progress.value}
                max={run.progress.total ?? undefined}
              />{' '}
              <span class="muted">
                {run.progress.value}
                {run.progress.total !== undefined ? ` / ${run.progress.total}` : ''}
              </span>
            </>
          ) : (
            <span>running…</span>
          )}
        </div>
      )}
      <OutcomeView outcome={outcome} kind="tool" />
    </section>
  );
}

function OutcomeView(props: { readonly outcome: Outcome | undefined; readonly kind: Kind }) {
  const o = props.outcome;
  if (!o) return null;
  if (o.cancelled)
    return (
      <p class="banner" role="status" data-testid="cancelled">
        Cancelled.
      </p>
    );
  if (o.error)
    return (
      <p class="banner error" role="alert" data-testid="rpc-error">
        {o.error}
      </p>
    );
  if (!o.result) return null;
  if (props.kind === 'tool') return <ToolResult result={o.result} onRead={readResource} />;
  if (props.kind === 'prompt') return <PromptMessages result={o.result} onRead={readResource} />;
  return <ResourceContents contents={o.result.contents ?? []} />;
}

function ResourceView(props: { readonly item: Json }) {
  const r = props.item;
  const key = `resource:${r.uri}`;
  return (
    <section>
      <Header item={r} name={r.name ?? r.uri} />
      <p>
        <code>{r.uri}</code> {r.mimeType && <span class="muted">{r.mimeType}</span>}{' '}
        {r.size !== undefined && <span class="muted">{r.size} bytes</span>}
      </p>
      <button type="button" onClick={() => void perform(key, 'resources/read', { uri: r.uri })}>
        Read
      </button>
      <OutcomeView outcome={store.outcomes.get(key)} kind="resource" />
    </section>
  );
}

/** RFC 6570 level 1–2 expressions: `{id}`, `{+path}`. */
function expand(template: string, values: Record<string, string>): string {
  return template.replace(/\{([+#]?)([^}]+)\}/g, (_m, op: string, names: string) =>
    names
      .split(',')
      .map((n) => {
        const v = values[n.trim()] ?? '';
        return op ? encodeURI(v) : encodeURIComponent(v);
      })
      .join(','),
  );
}

function TemplateView(props: { readonly item: Json }) {
  const t = props.item;
  const names = [...t.uriTemplate.matchAll(/\{[+#]?([^}]+)\}/g)].flatMap((m: RegExpMatchArray) =>
    (m[1] as string).split(',').map((n) => n.trim()),
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = expand(t.uriTemplate, values);
  const key = `template:${t.uriTemplate}`;
  return (
    <section>
      <Header item={t} name={t.name ?? t.uriTemplate} />
      <p>
        <code>{t.uriTemplate}</code>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void perform(key, 'resources/read', { uri });
        }}
      >
        {names.map((n) => (
          <div class="field" key={n}>
            <label for={`tv-${n}`}>{n}</label>
            <input
              id={`tv-${n}`}
              value={values[n] ?? ''}
              onInput={(e) => setValues({ ...values, [n]: (e.currentTarget as HTMLInputElement).value })}
            />
          </div>
        ))}
        <p class="muted">
          URI: <code>{uri}</code>
        </p>
        <button type="submit">Read</button>
      </form>
      <OutcomeView outcome={store.outcomes.get(key)} kind="template" />
    </section>
  );
}

function PromptView(props: { readonly prompt: Json }) {
  const p = props.prompt;
  const [values, setValues] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const key = `prompt:${p.name}`;
  return (
    <section>
      <Header item={p} name={p.name} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const lacking = (p.arguments ?? [])
            .filter((a: Json) => a.required && !values[a.name])
            .map((a: Json) => a.name);
          setMissing(lacking);
          if (lacking.length === 0) void perform(key, 'prompts/get', { name: p.name, arguments: values });
        }}
      >
        <h3>Arguments</h3>
        {(p.arguments ?? []).map((a: Json) => (
          <div class="field" key={a.name}>
            <label for={`pa-${a.name}`}>
              {a.name}
              {a.required && <span class="required"> *</span>}
            </label>
            <input
              id={`pa-${a.name}`}
              aria-required={a.required || undefined}
              aria-invalid={missing.includes(a.name) || undefined}
              value={values[a.name] ?? ''}
              onInput={(e) => setValues({ ...values, [a.name]: (e.currentTarget as HTMLInputElement).value })}
            />
            {a.description && <small class="muted">{a.description}</small>}
            {missing.includes(a.name) && (
              <small class="field-error" role="alert">
                required
              </small>
            )}
          </div>
        ))}
        <button type="submit">Get {p.name}</button>
      </form>
      <OutcomeView outcome={store.outcomes.get(key)} kind="prompt" />
    </section>
  );
}

// ---- dialogs: the server's questions ----

function AskDialog(props: { readonly ask: Ask }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { method, params: p } = props.ask;
  const schema = p?.requestedSchema ?? { type: 'object', properties: {} };
  const [value, setValue] = useState<Json>(() => initialValue(schema) ?? {});
  const [errors, setErrors] = useState<FieldErrors>(new Map());
  const [reply, setReply] = useState('');
  const [roots, setRoots] = useState(() => (store.dev ? `file://${store.dev.folder}` : ''));
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal?.();
  }, []);
  const done = (result: Json) => {
    store.asks.shift();
    props.ask.resolve(result);
    update();
  };
  const send = (label: string, result: () => Json) => (
    <button type="button" onClick={() => done(result())}>
      {label}
    </button>
  );
  const refuse = (why: string) => (
    <button
      type="button"
      class="danger"
      onClick={() => {
        store.asks.shift();
        props.ask.reject(new Error(why));
        update();
      }}
    >
      Refuse
    </button>
  );
  let title = method;
  let body: Json = null;
  let buttons: Json = null;
  if (method === 'elicitation/create' && p?.mode === 'url') {
    title = 'The server asks you to open a page';
    body = (
      <p>
        {p.message}{' '}
        <a href={p.url} target="_blank" rel="noreferrer noopener">
          {p.url}
        </a>
      </p>
    );
    buttons = <ElicitButtons onAnswer={done} accept={() => done({ action: 'accept' })} />;
  } else if (method === 'elicitation/create') {
    const empty = Object.keys(schema.properties ?? {}).length === 0;
    title = empty ? 'Confirm' : 'The server asks';
    body = (
      <>
        <p class="ask-message">{p?.message}</p>
        {!empty && <SchemaForm id="ask" schema={schema} value={value} errors={errors} onChange={setValue} />}
      </>
    );
    buttons = (
      <ElicitButtons
        onAnswer={done}
        accept={() => {
          const found = validate(schema, value ?? {});
          setErrors(found);
          if (found.size === 0) done({ action: 'accept', content: value ?? {} });
        }}
      />
    );
  } else if (method === 'sampling/createMessage') {
    title = 'The server asks your model (sampling)';
    body = (
      <>
        {p?.systemPrompt && <p class="muted">System: {p.systemPrompt}</p>}
        {(p?.messages ?? []).map((m: Json, i: number) => (
          <div class="message" key={String(i)}>
            <span class="badge">{m.role}</span>{' '}
            <pre class="content-text">{m.content?.text ?? JSON.stringify(m.content)}</pre>
          </div>
        ))}
        <TextArea
          id="sampling-reply"
          label={`Reply as the model (at most ${p?.maxTokens} tokens)`}
          value={reply}
          set={setReply}
        />
      </>
    );
    buttons = (
      <>
        {send('Send reply', () => ({
          role: 'assistant',
          content: { type: 'text', text: reply },
          model: 'mcp-run-dev-playground',
          stopReason: 'endTurn',
        }))}
        {refuse('the user declined to sample')}
      </>
    );
  } else if (method === 'roots/list') {
    title = 'The server asks for your roots';
    body = <TextArea id="roots" label="Roots, one file:// URI a line" value={roots} set={setRoots} />;
    buttons = send('Send roots', () => ({
      roots: roots
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .map((uri) => ({ uri, name: uri.split('/').filter(Boolean).pop() ?? uri })),
    }));
  } else {
    body = <Tree value={p} />;
    buttons = refuse(`the playground cannot answer ${method}`);
  }
  return (
    <dialog
      ref={ref}
      aria-labelledby="ask-title"
      data-testid="ask-dialog"
      data-method={method}
      onCancel={(e) => {
        e.preventDefault();
        if (method === 'elicitation/create') done({ action: 'cancel' });
      }}
    >
      <h2 id="ask-title">{title}</h2>
      {body}
      <div class="actions">{buttons}</div>
    </dialog>
  );
}

function TextArea(props: {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly set: (v: string) => void;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        rows={4}
        value={props.value}
        onInput={(e) => props.set((e.currentTarget as HTMLTextAreaElement).value)}
      />
    </>
  );
}

function ElicitButtons(props: { readonly onAnswer: (r: Json) => void; readonly accept: () => void }) {
  return (
    <>
      <button type="button" onClick={props.accept}>
        Accept
      </button>
      <button type="button" onClick={() => props.onAnswer({ action: 'decline' })}>
        Decline
      </button>
      <button type="button" onClick={() => props.onAnswer({ action: 'cancel' })}>
        Cancel
      </button>
    </>
  );
}

// ---- panels: trace, logs, reload ----

function Panels() {
  const tabs = [
    ['trace', `Trace (${store.trace.length})`],
    ['logs', `Logs (${store.logs.length})`],
    ['reload', 'Reload'],
  ] as const;
  return (
    <section class="panels" aria-label="panels">
      <div role="tablist" aria-label="panels">
        {tabs.map(([id, label]) => (
          <button
            type="button"
            role="tab"
            id={`tab-${id}`}
            key={id}
            aria-selected={store.panel === id}
            aria-controls={`panel-${id}`}
            onClick={() => {
              store.panel = id;
              update();
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${store.panel}`} aria-labelledby={`tab-${store.panel}`}>
        {store.panel === 'trace' ? <TracePanel /> : store.panel === 'logs' ? <LogsPanel /> : <ReloadPanel />}
      </div>
    </section>
  );
}

function TracePanel() {
  const [filter, setFilter] = useState('');
  const [dir, setDir] = useState<'all' | 'out' | 'in'>('all');
  const [copied, setCopied] = useState('');
  const q = filter.trim().toLowerCase();
  const shown = store.trace.filter(
    (e) => (dir === 'all' || e.dir === dir) && (!q || JSON.stringify(e.message).toLowerCase().includes(q)),
  );
  const copy = (text: string) => {
    setCopied(text);
    void navigator.clipboard?.writeText(text).catch(() => undefined);
  };
  return (
    <div class="trace">
      <div class="toolbar">
        <label for="trace-filter">Filter</label>
        <input
          id="trace-filter"
          type="search"
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        <label for="trace-dir">Direction</label>
        <select
          id="trace-dir"
          value={dir}
          onChange={(e) => setDir((e.currentTarget as HTMLSelectElement).value as 'all')}
        >
          <option value="all">both</option>
          <option value="out">sent →</option>
          <option value="in">received ←</option>
        </select>
        <button
          type="button"
          onClick={() =>
            copy(
              JSON.stringify(
                shown.map((e) => e.message),
                null,
                2,
              ),
            )
          }
        >
          Copy shown as JSON
        </button>
        <button
          type="button"
          onClick={() => {
            store.trace = [];
            update();
          }}
        >
          Clear
        </button>
      </div>
      {copied && (
        <details open class="copied">
          <summary>Copied</summary>
          <pre data-testid="copied">{copied}</pre>
        </details>
      )}
      <ol class="trace-list" data-testid="trace">
        {shown
          .slice(-300)
          .reverse()
          .map((e) => {
            const m = e.message;
            const what = m.method ?? (m.error ? `error ${m.error.code}` : 'result');
            const call = e.dir === 'out' && m.method === 'tools/call';
            return (
              <li
                key={String(e.seq)}
                class={`trace-entry ${e.dir}`}
                data-testid="trace-entry"
                data-method={m.method ?? ''}
              >
                <details>
                  <summary>
                    <span class="muted">{(e.at / 1000).toFixed(3)}s</span>{' '}
                    <span title={e.dir === 'out' ? 'sent' : 'received'}>{e.dir === 'out' ? '→' : '←'}</span>
                    <span class="visually-hidden">{e.dir === 'out' ? 'sent' : 'received'}</span>{' '}
                    <strong>{what}</strong>{' '}
                    {m.id !== undefined && <span class="muted">id {JSON.stringify(m.id)}</span>}{' '}
                    {e.ms !== undefined && <span class="muted">{e.ms} ms</span>}{' '}
                    <span class="muted">{e.via}</span> <span class="muted">{e.era}</span>
                  </summary>
                  <div class="actions">
                    <button type="button" class="small" onClick={() => copy(JSON.stringify(m, null, 2))}>
                      Copy JSON
                    </button>
                    {call && (
                      <>
                        <button
                          type="button"
                          class="small"
                          onClick={() => copy(asCallCommand(e, store.dev?.manifest))}
                        >
                          Copy as mcp-run call
                        </button>
                        <button type="button" class="small" onClick={() => copy(asCurl(e))}>
                          Copy as curl
                        </button>
                      </>
                    )}
                  </div>
                  <pre>{JSON.stringify(m, null, 2)}</pre>
                </details>
              </li>
            );
          })}
      </ol>
    </div>
  );
}

function LogsPanel() {
  return (
    <ol class="logs" data-testid="logs">
      {store.logs.map((l, i) => (
        <li key={String(i)} class={`log level-${l.level}`}>
          <span class="muted">{l.at.slice(11, 23)}</span> <span class="badge">{l.level}</span>{' '}
          {l.logger && <span class="muted">{l.logger}</span>}{' '}
          {typeof l.data === 'string' ? l.data : JSON.stringify(l.data)}
        </li>
      ))}
    </ol>
  );
}

function ReloadPanel() {
  const r = store.reload;
  if (!r)
    return (
      <p class="muted">
        No reload yet. Edit {store.dev?.manifest ?? 'the manifest'} and save: this panel says what changed.
      </p>
    );
  return r.ok ? (
    <p>
      {r.at}: reloaded, {r.summary}
      {r.names && ` (${r.names})`}
    </p>
  ) : (
    <ReloadErrors reload={r} />
  );
}

// ---- start: the catalog is read before the first paint ----

connectSync(store.era);
void Promise.resolve().then(() => {
  render(<App />, document.getElementById('app')!);
  void followDevEvents();
});
