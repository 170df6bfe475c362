/**
 * Source `mcp`: another MCP server, reached over stdio (a program, argv only, no shell) or
 * Streamable HTTP (a URL, 2025 era), spoken to by mcp-run's own client (client.ts). Its lists are
 * read once when the source opens; that is the contract `kind: mcp` entries and `expose:` are
 * compiled against (pinned: a change upstream shows after a reload, never silently in between).
 *
 * With `start: serve` (default) the upstream runs from then on and is restarted with backoff when
 * it dies; with `first-use` it is stopped after its lists are read and started by the first call.
 * Either way a dead upstream fails its own callers with a sentence, and other sources keep serving.
 * Dispose (a reload, shutdown) kills a stdio upstream with everything it started.
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
 * tools:
 *   remember:
 *     kind: mcp
 *     source: memory
 *     tool: create_entities
 *     description: Store facts about the user.
 * ```
 */
import { isAbsolute, resolve } from 'node:path';
import { problems } from '../../errors.js';
import { abortSignalOf } from '../../util/call-signal.js';
import { escapeControls } from '../../util/escape-controls.js';
import { isObject } from '../../util/is-object.js';
import { JsonRpcCode } from '../../util/jsonrpc.js';
import type { McpCapability, SourceKind, UpstreamEntry, UpstreamListing } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import { processCount } from '../contract/share.js';
import { type ClientAskMethod, ClientAskRefused, type LogLevel } from '../contract/types.js';
import { clientCredentials } from '../shared/oauth.js';
import { authParts, type HttpAuth } from '../shared/outbound-auth.js';
import { type McpClient, UpstreamError } from './client.js';
import { type ExposeConfig, exposedEntries } from './expose.js';
import { completionValues, DEFAULT_MAX_SUBSCRIPTIONS, UpstreamSubscriptions } from './follow.js';
import { HeldCalls, type Listener } from './held.js';
import { startHttp, urlSecrets } from './http-channel.js';
import { promptResult, questionParams, redactData, resourceContents, toolResult } from './relay.js';
import { callInRounds } from './rounds.js';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_ENV_PASSTHROUGH,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RESULT_BYTES,
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
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: HttpAuth;
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
const RELAYED: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

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
    if (config.auth && 'tokenExchange' in config.auth) {
      ctx.error(
        ['auth', 'tokenExchange'],
        problems.MANIFEST_INVALID_VALUE(
          'bearer, basic, apiKey or oauth: a token exchange per caller is not supported for mcp sources yet',
        ),
      );
      return undefined;
    }
    const maxMessageBytes = config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const timeoutMs = config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const auth = authParts(config.auth);
    // One session serves every caller, so its credentials are the source's own, never a caller's.
    const tokens = config.auth && 'oauth' in config.auth ? clientCredentials(config.auth.oauth) : undefined;
    // The auth's secrets, and what else the manifest gives that may be one: each `headers:` value
    // (and the token after a scheme, `Bearer …`) and the URL's query values (`?api_key=…`).
    const secrets = redactable([
      ...auth.secrets,
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
      return out;
    };
    const command = config.command;
    const url = config.url;
    // Set below, once requests can be made; the upstream's updates and restarts reach it.
    let subscriptions: UpstreamSubscriptions | undefined;
    const upstream = new Upstream({
      name: `upstream ${ctx.name}`,
      restartOnExit: (config.start ?? 'serve') === 'serve',
      connectTimeoutMs: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
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
                  headers: {
                    ...Object.fromEntries(
                      Object.entries(config.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
                    ),
                    ...auth.headers,
                  },
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
    try {
      const client = await upstream.connected();
      upstreamCaps = client.capabilities;
      listing = await readListing(client, timeoutMs, config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
      if (config.start === 'first-use') await upstream.stop(`upstream ${ctx.name} waits for its first use`);
    } catch (err) {
      await upstream.dispose();
      ctx.error([], problems.SOURCE_OPEN_FAILED(ctx.name, escapeControls(redact((err as Error).message))));
      return undefined;
    }

    // Upstream calls waiting for a 2026 client's answer; a reload or shutdown cancels them.
    const held = new HeldCalls(
      timeoutMs,
      (what) => ctx.log.info(`upstream ${ctx.name}: ${redact(what)}`),
      config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
    );
    const request = (method: string, params: object, signal: AbortSignal, extra = {}) =>
      upstream.use(signal, (client) => client.request(method, params, { signal, timeoutMs, ...extra }));

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
      viewUri: viewUriRule(ctx.name, config.expose?.tools?.prefix),
      subscribable: isObject(upstreamCaps.resources) && upstreamCaps.resources.subscribe === true,
      follow: (uri, onUpdated) => follows.follow(uri, onUpdated),
      async complete(ref, argument, value, context) {
        if (!isObject(upstreamCaps.completions)) return [];
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
          ...reports(() => call),
        });
        return toolResult(result, redact);
      },
      async readResource(uri, signal) {
        const result = await request('resources/read', { uri }, signal);
        const contents = isObject(result) && Array.isArray(result.contents) ? result.contents : [];
        return contents.flatMap((c) => resourceContents(c, redact));
      },
      async getPrompt(name, args, signal) {
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
