/**
 * Source `mcp`: another MCP server, reached over stdio (a program, argv only, no shell) or
 * Streamable HTTP (a URL, 2025 or 2026-07-28 era: modern.ts), spoken to by mcp-run's own client (client.ts). Its lists are
 * read once when the source opens; that is the contract `kind: mcp` entries and `expose:` are
 * compiled against (pinned: a change upstream shows after a reload, never silently in between).
 *
 * With `start: serve` (default) the upstream runs from then on and is restarted with backoff when
 * it dies; with `first-use` it is stopped after its lists are read and started by the first call.
 * Either way a dead upstream fails its own callers with a sentence, and other sources keep serving.
 * Dispose (a reload, shutdown) kills a stdio upstream with everything it started.
 *
 * With `auth: { tokenExchange }` (HTTP only, and only with `server.auth`) each caller's tool calls go
 * through an upstream session of its own, opened with the token its own token was exchanged for
 * (sessions.ts); the lists are read, once, by a session with the source's own `listingAuth`. Only
 * tools are served so: a resource read or a prompt get carries no caller here.
 *
 * @example
 * ```yaml
 * sources:
 *   fs:
 *     kind: mcp
 *     command: [npx, -y, "@modelcontextprotocol/server-filesystem", /srv/docs]
 *     expose:
 *       tools: { include: [read_*, list_directory], prefix: fs_ }
 *   search:
 *     kind: mcp
 *     url: https://search.example.com/mcp
 *     auth: { bearer: "${env:SEARCH_TOKEN}" }
 *   files:
 *     kind: mcp
 *     url: https://files.example.com/mcp
 *     auth: { tokenExchange: { tokenUrl: https://auth.example.com/token, clientId: mcp-run, clientSecret: "${env:FILES_SECRET}", audience: files } }
 *     listingAuth: { bearer: "${env:FILES_LISTING_TOKEN}" }
 * tools:
 *   remember:
 *     kind: mcp
 *     source: memory
 *     tool: create_entities
 *     description: Store facts about the user.
 * ```
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { problems } from '../../errors.js';
import type { Logger } from '../../log.js';
import { abortSignalOf } from '../../util/call-signal.js';
import { escapeControls } from '../../util/escape-controls.js';
import { isObject } from '../../util/is-object.js';
import { JsonRpcCode } from '../../util/jsonrpc.js';
import type { McpCapability, SourceKind, UpstreamEntry, UpstreamListing } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import { processCount } from '../contract/share.js';
import { type ClientAskMethod, ClientAskRefused, type LogLevel } from '../contract/types.js';
import { clientCredentials, type TokenSource, tokenExchange } from '../shared/oauth.js';
import { authParts, type HttpAuth } from '../shared/outbound-auth.js';
import { type McpClient, type RequestOptions, type Root, UpstreamError } from './client.js';
import { type ExposeConfig, exposedEntries } from './expose.js';
import { completionValues, DEFAULT_MAX_SUBSCRIPTIONS, UpstreamSubscriptions } from './follow.js';
import { HeldCalls, type Listener } from './held.js';
import { startHttp, urlSecrets } from './http-channel.js';
import { type Era, paramHeaders } from './modern.js';
import { promptResult, questionParams, redactData, resourceContents, toolResult } from './relay.js';
import { callInRounds } from './rounds.js';
import { CallerSessions, PER_CALLER_TOOLS_ONLY, SESSION_IDLE_MS, tokenExchangeRefusal } from './sessions.js';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_ENV_PASSTHROUGH,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_SESSIONS,
  mcpSourceInfo,
} from './source.info.js';
import { startStdio } from './stdio-channel.js';
import { Upstream } from './upstream.js';
import { viewUriRule } from './views.js';

export interface McpSourceConfig {
  readonly command?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly envPassthrough?: readonly string[];
  readonly cwd?: string;
  readonly roots?: readonly string[];
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly era?: Era;
  readonly auth?: HttpAuth;
  /** With `auth: { tokenExchange }`: the source's own credentials, for the session that reads the lists. */
  readonly listingAuth?: Exclude<HttpAuth, { readonly tokenExchange: unknown }>;
  readonly maxSessions?: number;
  readonly start?: 'serve' | 'first-use';
  readonly perWorker?: boolean;
  readonly connectTimeoutMs?: number;
  readonly timeoutMs?: number;
  readonly maxConcurrency?: number;
  readonly maxMessageBytes?: number;
  readonly maxResultBytes?: number;
  readonly descriptionChange?: 'report' | 'refuse';
  readonly expose?: ExposeConfig;
}

/** The upstream's requests relayed to the calling client (CallContext.ask); the rest get -32601. */
// Not roots/list: mcp-run answers it itself from the source's `roots:` (client.ts), never with a
// caller's roots, which the one upstream session would keep for every caller.
const RELAYED: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage']);

/**
 * An upstream call's onRequest: the relayed methods go to `ask`, the rest are answered -32601; a
 * question whose params are not of its method's shape is answered -32602 (relay.ts, questionParams).
 */
function relayed(
  ask: (method: ClientAskMethod, params: Readonly<Record<string, unknown>>) => Promise<unknown>,
  redact: (text: string) => string,
): (method: string, params: unknown) => Promise<unknown> {
  return async (method, params) => {
    if (!RELAYED.has(method))
      throw new UpstreamError(JsonRpcCode.MethodNotFound, `mcp-run does not relay ${method}`);
    const checked = questionParams(method, params, redact);
    if ('refused' in checked) throw new UpstreamError(JsonRpcCode.InvalidParams, checked.refused);
    return ask(method as ClientAskMethod, checked.params);
  };
}

/** Pages of one list read at most: an upstream that pages forever is cut off here. */
const MAX_LIST_PAGES = 100;
/** Entries of one list read at most, and bytes of its pages together: an upstream's lists are held for the catalog's life. */
const MAX_LIST_ENTRIES = 10_000;
/** Longer upstream names are left out before any matching (no manifest name is this long). */
const MAX_NAME_CHARS = 128;

export const mcpSource: SourceKind<McpSourceConfig> = {
  ...mcpSourceInfo,

  async open(config, ctx) {
    if ((config.command === undefined) === (config.url === undefined)) {
      ctx.error(
        [],
        problems.MANIFEST_INVALID_VALUE(
          'either `command:` (a program over stdio) or `url:` (Streamable HTTP)',
          'give exactly one of them',
        ),
      );
      return undefined;
    }
    if (config.command !== undefined && processCount() > 1 && config.perWorker !== true) {
      // One server, one upstream: N copies of a stateful one (server-memory) would each hold their own.
      ctx.error(
        ['command'],
        problems.MANIFEST_INVALID_VALUE(
          `a stdio upstream runs once per server process: --workers would start ${processCount()} copies of it, and a stateful upstream's copies diverge`,
          'serve this manifest with --workers 1; serve the upstream over Streamable HTTP and give its `url:` (one upstream, shared by every worker); or, for an upstream that keeps no state between calls, set `perWorker: true` (docs/upstream-mcp.md)',
        ),
      );
      return undefined;
    }
    if (config.command !== undefined && config.era !== undefined && config.era !== '2025') {
      ctx.error(
        ['era'],
        problems.MANIFEST_INVALID_VALUE(
          'a stdio upstream speaks the 2025 era: `era` chooses the era of a `url:` upstream',
          'remove `era`, or set it to 2025',
        ),
      );
      return undefined;
    }
    const refusal = tokenExchangeRefusal(config, ctx.verifiedCallers === true);
    if (refusal !== undefined) {
      ctx.error(refusal.at, problems.SOURCE_TOKEN_EXCHANGE_REFUSED(ctx.name, refusal.reason, refusal.hint));
      return undefined;
    }
    const exchange = config.auth && 'tokenExchange' in config.auth ? config.auth.tokenExchange : undefined;
    const maxMessageBytes = config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const timeoutMs = config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    // The source's own credentials: those of the one session every caller shares, or, with a token
    // exchange, of the session that reads the lists. Never a caller's.
    const own = exchange === undefined ? config.auth : config.listingAuth;
    const auth = authParts(own);
    const tokens = own && 'oauth' in own ? clientCredentials(own.oauth) : undefined;
    // Each caller's upstream token (RFC 8693), for that caller's own session (sessions.ts).
    const exchanged: TokenSource | undefined = exchange === undefined ? undefined : tokenExchange(exchange);
    // Set below; its sessions' tokens are redacted like the rest.
    let sessions: CallerSessions | undefined;
    const fixedHeaders = Object.fromEntries(
      Object.entries(config.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    );
    // The auth's secrets, and what else the manifest gives that may be one: each `headers:` value
    // (and the token after a scheme, `Bearer …`) and the URL's query values (`?api_key=…`).
    const secrets = redactable([
      ...auth.secrets,
      ...authParts(config.auth).secrets,
      ...Object.values(config.headers ?? {}).flatMap((value) => [
        value,
        ...(/^\S+\s+(\S+)$/.exec(value)?.slice(1) ?? []),
      ]),
      ...(config.url === undefined ? [] : urlSecrets(config.url)),
    ]);
    const redact = (text: string) => {
      let out = text;
      for (const secret of secrets) out = out.split(secret).join('***');
      if (tokens !== undefined) for (const secret of tokens.held()) out = out.split(secret).join('***');
      for (const secret of [...(exchanged?.held() ?? []), ...(sessions?.held() ?? [])])
        out = out.split(secret).join('***');
      return out;
    };
    // What the caller sessions log (their upstream's log messages too) is redacted first.
    const redactedLog: Logger = {
      debug: (m) => ctx.log.debug(redact(m)),
      info: (m) => ctx.log.info(redact(m)),
      warn: (m) => ctx.log.warn(redact(m)),
      error: (m) => ctx.log.error(redact(m)),
    };
    const command = config.command;
    const url = config.url;
    // Set below, once requests can be made; the upstream's updates and restarts reach it.
    let subscriptions: UpstreamSubscriptions | undefined;
    const roots = config.roots?.map((root) => rootOf(root, ctx.baseDir));
    const upstream = new Upstream({
      name: `upstream ${ctx.name}`,
      restartOnExit: (config.start ?? 'serve') === 'serve',
      ...(roots !== undefined && { roots }),
      connectTimeoutMs: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // A stdio upstream initializes (2025); an HTTP one speaks the era the source asks (modern.ts).
      era: command !== undefined ? '2025' : (config.era ?? 'auto'),
      maxConcurrency: config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
      maxResultBytes: config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
      log: ctx.log,
      // The pinned lists are read again by a reload (KindContext.changed), never in place.
      onListChanged: (method) =>
        ctx.changed(`upstream ${ctx.name} sent ${method}`, config.descriptionChange ?? 'report'),
      onResourceUpdated: (uri) => subscriptions?.updated(uri),
      onRestarted: () => subscriptions?.restarted(),
      connect:
        command !== undefined
          ? (events) =>
              startStdio(
                {
                  name: `upstream ${ctx.name}`,
                  file: programPath(command[0]!, ctx.baseDir),
                  args: command.slice(1),
                  cwd: resolve(ctx.baseDir, config.cwd ?? '.'),
                  env: environment(config.env, config.envPassthrough),
                  maxMessageBytes,
                  log: ctx.log,
                },
                events,
              )
          : async (events) =>
              startHttp(
                {
                  name: `upstream ${ctx.name}`,
                  url: url!,
                  headers: { ...fixedHeaders, ...auth.headers },
                  tokens,
                  maxMessageBytes,
                  requestTimeoutMs: timeoutMs + 5000,
                  log: ctx.log,
                },
                events,
              ),
    });

    let listing: UpstreamListing;
    let upstreamCaps: Record<string, unknown> = {};
    let era: '2025' | '2026' = '2025';
    try {
      const client = await upstream.connected();
      upstreamCaps = client.capabilities;
      era = client.era;
      listing = await readListing(client, timeoutMs, config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
      if (config.start === 'first-use') await upstream.stop(`upstream ${ctx.name} waits for its first use`);
    } catch (err) {
      await upstream.dispose();
      ctx.error([], problems.SOURCE_OPEN_FAILED(ctx.name, escapeControls(redact((err as Error).message))));
      return undefined;
    }

    if (exchanged !== undefined)
      sessions = new CallerSessions({
        name: `upstream ${ctx.name}`,
        tokens: exchanged,
        maxSessions: config.maxSessions ?? DEFAULT_MAX_SESSIONS,
        idleMs: SESSION_IDLE_MS,
        maxConcurrency: config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
        log: redactedLog,
        // A session bound to one exchanged token: with no credential of the listing session's, and
        // never restarted (the next call opens a new one, with a token that may be new).
        open: (token, refused) =>
          new Upstream({
            name: `upstream ${ctx.name}`,
            restartOnExit: false,
            // The era the listing session found: the upstream's, for every caller's session.
            era,
            ...(roots !== undefined && { roots }),
            connectTimeoutMs: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
            maxConcurrency: config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
            maxResultBytes: config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
            log: redactedLog,
            connect: async (events) =>
              startHttp(
                {
                  name: `upstream ${ctx.name}`,
                  url: url!,
                  // In the headers too, so that the session's DELETE carries it.
                  headers: { ...fixedHeaders, authorization: `Bearer ${token}` },
                  tokens: { token: async () => token, refused, held: () => [token] },
                  maxMessageBytes,
                  requestTimeoutMs: timeoutMs + 5000,
                  log: redactedLog,
                },
                events,
              ),
          }),
      });
    const perCaller = sessions;

    // Upstream calls waiting for a 2026 client's answer; a reload or shutdown cancels them.
    const held = new HeldCalls(
      timeoutMs,
      (what) => ctx.log.info(`upstream ${ctx.name}: ${redact(what)}`),
      config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
    );
    const request = (
      method: string,
      params: object,
      signal: AbortSignal,
      extra: Omit<RequestOptions, 'signal' | 'timeoutMs'> = {},
    ) => {
      const work = (client: McpClient) => client.request(method, params, { signal, timeoutMs, ...extra });
      return perCaller === undefined
        ? upstream.use(signal, work)
        : perCaller.use(extra.identity, signal, work);
    };

    const timed = (method: string, params: object) =>
      request(method, params, AbortSignal.timeout(timeoutMs + 1000));
    subscriptions = new UpstreamSubscriptions({
      name: `upstream ${ctx.name}`,
      max: DEFAULT_MAX_SUBSCRIPTIONS,
      request: timed,
      log: ctx.log,
      redact,
    });
    const follows = subscriptions;
    const mcp: McpCapability = {
      listing,
      redact,
      // Per caller, only tools: no view page, subscription or completion reads without a caller.
      perCaller: perCaller !== undefined,
      viewUri:
        perCaller === undefined ? viewUriRule(ctx.name, config.expose?.tools?.prefix) : () => undefined,
      // A 2026 upstream's updates come on a subscriptions/listen stream, which mcp-run does not open yet.
      subscribable:
        perCaller === undefined &&
        era === '2025' &&
        isObject(upstreamCaps.resources) &&
        upstreamCaps.resources.subscribe === true,
      follow: (uri, onUpdated) => follows.follow(uri, onUpdated),
      async complete(ref, argument, value, context) {
        if (!isObject(upstreamCaps.completions) || perCaller !== undefined) return [];
        const result = await timed('completion/complete', {
          ref,
          argument: { name: argument, value },
          ...(Object.keys(context).length > 0 && { context: { arguments: context } }),
        });
        return completionValues(result, redact);
      },
      async callTool(name, args, call) {
        const reports = (listener: () => Listener | undefined) => ({
          identity: call.identity,
          onProgress: (progress: number, total?: number, message?: string) =>
            listener()?.progress(progress, total, message === undefined ? undefined : redact(message)),
          onLog: (level: LogLevel, data: unknown, logger?: string) =>
            listener()?.log(
              level,
              redactData(data, redact),
              logger === undefined ? undefined : redact(logger),
            ),
        });
        const params = { name, arguments: args };
        // 2026 HTTP: arguments the tool's schema mirrors into headers (x-mcp-header) go as headers too.
        const schema = era === '2026' ? listing.tools.find((t) => t.name === name)?.inputSchema : undefined;
        const headers = schema === undefined ? undefined : paramHeaders(schema, args);
        // 2026: the upstream's questions end a round with input_required, its call held here between rounds.
        if (call.interaction?.stateless === true) {
          const outcome = await callInRounds(
            {
              held,
              source: ctx.name,
              timeoutMs,
              start: (ask, listener, signal) =>
                request('tools/call', params, signal, {
                  onRequest: relayed(ask, redact),
                  headers,
                  ...reports(listener),
                }),
            },
            call,
            call.interaction,
          );
          return 'refused' in outcome ? errorResult(outcome.refused) : toolResult(outcome.result, redact);
        }
        const ask = call.ask;
        const onRequest = relayed(async (method, params) => {
          if (ask === undefined)
            throw new UpstreamError(JsonRpcCode.MethodNotFound, `this call cannot reach a client to ask`);
          try {
            return await ask.call(call, method, params, timeoutMs);
          } catch (err) {
            if (!(err instanceof ClientAskRefused)) throw err;
            throw new UpstreamError(err.code, err.message);
          }
        }, redact);
        const result = await request('tools/call', params, abortSignalOf(call.signal), {
          onRequest,
          headers,
          ...reports(() => call),
        });
        return toolResult(result, redact);
      },
      async readResource(uri, signal) {
        if (perCaller !== undefined) throw new Error(PER_CALLER_TOOLS_ONLY);
        const result = await request('resources/read', { uri }, signal);
        const contents = isObject(result) && Array.isArray(result.contents) ? result.contents : [];
        return contents.flatMap((c) => resourceContents(c, redact));
      },
      async getPrompt(name, args, signal) {
        if (perCaller !== undefined) throw new Error(PER_CALLER_TOOLS_ONLY);
        const result = await request('prompts/get', { name, arguments: args }, signal);
        return promptResult(result, redact);
      },
    };

    return {
      capabilities: { mcp },
      entries: exposedEntries(ctx.name, config.expose, listing, ctx),
      async ping(signal) {
        if (config.start === 'first-use' && !upstream.running) return;
        await upstream.ping(signal);
      },
      pool: () => upstream.stats(),
      described: describedIn(listing),
      async dispose() {
        held.dispose();
        await follows.dispose();
        await perCaller?.dispose();
        await upstream.dispose();
      },
    };
  },
};

/** The upstream's descriptions by `<category> <name>` (OpenedSource.described). */
function describedIn(listing: UpstreamListing): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  const add = (category: string, entries: readonly UpstreamEntry[], key: (e: UpstreamEntry) => unknown) => {
    for (const entry of entries)
      if (typeof entry.description === 'string')
        out.set(`${category} ${String(key(entry))}`, entry.description);
  };
  add('tool', listing.tools, (e) => e.name);
  add('prompt', listing.prompts, (e) => e.name);
  add('resource', listing.resources, (e) => (e as { uri?: unknown }).uri);
  add('template', listing.templates, (e) => (e as { uriTemplate?: unknown }).uriTemplate);
  return out;
}

/** Longest first (a secret containing another is replaced whole); short ones would garble text. */
function redactable(values: readonly string[]): string[] {
  return [...new Set(values)].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
}

/** A `roots:` entry as `roots/list` answers it: a file:// URI as written, a path resolved to one. */
function rootOf(root: string, baseDir: string): Root {
  return { uri: root.startsWith('file://') ? root : pathToFileURL(resolve(baseDir, root)).href, name: root };
}

function programPath(program: string, baseDir: string): string {
  return isAbsolute(program) || !/[\\/]/.test(program) ? program : resolve(baseDir, program);
}

function environment(
  env: Readonly<Record<string, string>> | undefined,
  passthrough: readonly string[] | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of passthrough ?? DEFAULT_ENV_PASSTHROUGH) {
    const value = process.env[name];
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...env };
}

/**
 * The upstream's lists, bounded: at most MAX_LIST_PAGES pages, MAX_LIST_ENTRIES entries and
 * `maxBytes` of JSON a list (the pages together); past a bound the open fails, naming it.
 */
async function readListing(client: McpClient, timeoutMs: number, maxBytes: number): Promise<UpstreamListing> {
  const caps = client.capabilities;
  const list = async (method: string, field: string): Promise<UpstreamEntry[]> => {
    const out: UpstreamEntry[] = [];
    let cursor: string | undefined;
    let bytes = 0;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.request(method, cursor === undefined ? {} : { cursor }, { timeoutMs });
      bytes += JSON.stringify(result ?? null).length;
      if (bytes > maxBytes)
        throw new Error(
          `its ${method} answer is over ${maxBytes} bytes in all (maxResultBytes bounds the pages together)`,
        );
      const items = isObject(result) && Array.isArray(result[field]) ? result[field] : [];
      for (const item of items)
        if (isObject(item) && typeof item.name === 'string' && item.name.length <= MAX_NAME_CHARS)
          out.push(item as unknown as UpstreamEntry);
      if (out.length > MAX_LIST_ENTRIES)
        throw new Error(`its ${method} lists more than ${MAX_LIST_ENTRIES} entries`);
      const next = isObject(result) ? result.nextCursor : undefined;
      if (typeof next !== 'string' || next === '') break;
      cursor = next;
    }
    return out;
  };
  return {
    tools: caps.tools ? await list('tools/list', 'tools') : [],
    resources: caps.resources ? await list('resources/list', 'resources') : [],
    templates: caps.resources ? await list('resources/templates/list', 'resourceTemplates') : [],
    prompts: caps.prompts ? await list('prompts/list', 'prompts') : [],
  };
}
