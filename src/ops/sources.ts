/**
 * Which sources are live, by name, for `/readyz` and the pool metrics. The registry's source kinds
 * are wrapped so that each source `open` returns is recorded and forgotten when it is disposed; a
 * reload opens new sources (the newest of a name is the one served) and disposes the old ones.
 */
import type {
  HttpCapability,
  McpCapability,
  OpenedSource,
  SourceCapabilities,
  SourceKind,
  SourcePoolStats,
  SqlCapability,
} from '../kinds/contract/kinds.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { EntrySection } from '../manifest/types.js';
import { ops } from './hooks.js';

/** Longest a readiness check waits for one source. */
export const PING_TIMEOUT_MS = 2000;

export class SourceTracker {
  private readonly live = new Map<string, OpenedSource[]>();

  /** Makes `registry` report every source its kinds open to this tracker. */
  watch(registry: KindRegistry): void {
    const load = registry.load.bind(registry);
    const wrapped = new Map<SourceKind, SourceKind>();
    registry.load = (async (section: EntrySection, name: string) => {
      const kind = await load(section, name);
      if (section !== 'sources' || kind === undefined) return kind;
      const source = kind as SourceKind;
      let w = wrapped.get(source);
      if (!w) {
        w = this.wrap(source);
        wrapped.set(source, w);
      }
      return w;
    }) as KindRegistry['load'];
  }

  private wrap(kind: SourceKind): SourceKind {
    return {
      ...kind,
      open: async (config, ctx) => {
        const opened = await kind.open(config, ctx);
        if (!opened) return opened;
        const list = this.live.get(ctx.name) ?? [];
        list.push(opened);
        this.live.set(ctx.name, list);
        return {
          ...opened,
          capabilities: observed(ctx.name, opened.capabilities),
          dispose: async () => {
            const left = (this.live.get(ctx.name) ?? []).filter((s) => s !== opened);
            if (left.length === 0) this.live.delete(ctx.name);
            else this.live.set(ctx.name, left);
            await opened.dispose();
          },
        };
      },
    };
  }

  /** The served source of each name (the newest opened and not yet disposed). */
  private current(): [string, OpenedSource][] {
    return [...this.live].map(([name, list]) => [name, list[list.length - 1]!]);
  }

  /** Each source's reachability: `ok`, or why not. Sources without a ping are `ok`. */
  async check(): Promise<Map<string, string>> {
    const results = await Promise.all(
      this.current().map(async ([name, source]): Promise<[string, string]> => {
        if (!source.ping) return [name, 'ok'];
        const signal = AbortSignal.timeout(PING_TIMEOUT_MS);
        try {
          await Promise.race([
            source.ping(signal),
            new Promise<never>((_, reject) =>
              signal.addEventListener('abort', () =>
                reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)),
              ),
            ),
          ]);
          return [name, 'ok'];
        } catch (err) {
          return [name, (err as Error).message || String(err)];
        }
      }),
    );
    return new Map(results.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Pool figures of the sources that have them. */
  pools(): [string, SourcePoolStats][] {
    const out: [string, SourcePoolStats][] = [];
    for (const [name, source] of this.current()) {
      const stats = source.pool?.();
      if (stats) out.push([name, stats]);
    }
    return out;
  }
}

/**
 * The capabilities with each backend call reported through the ops hooks (a child span per SQL
 * statement, without its values, per HTTP request, which carries the `traceparent`, and per request
 * to an upstream MCP server, without its arguments).
 */
function observed(source: string, caps: Partial<SourceCapabilities>): Partial<SourceCapabilities> {
  const out: Partial<SourceCapabilities> = { ...caps };
  const { sql, http, mcp } = caps;
  if (sql) {
    const query: SqlCapability['query'] = (statement, values, options) => {
      const text = statement.segments.join('?');
      const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
      return ops.backend(
        {
          system: 'sql',
          source,
          name: `${operation} ${source}`,
          attributes: {
            'db.system.name': sql.dialect,
            'db.query.text': text,
            'db.operation.name': operation,
          },
        },
        () => sql.query(statement, values, options),
      );
    };
    out.sql = { ...sql, query };
  }
  if (http) {
    const request: HttpCapability['request'] = (req) => {
      const method = req.method.toUpperCase();
      return ops.backend(
        {
          system: 'http',
          source,
          name: `${method} ${source}`,
          attributes: { 'http.request.method': method, 'url.full': `${http.baseUrl}${req.path}` },
        },
        (headers) =>
          http.request(
            Object.keys(headers).length === 0 ? req : { ...req, headers: { ...req.headers, ...headers } },
          ),
      );
    };
    out.http = { ...http, request };
  }
  if (mcp) {
    const span = <T>(method: string, entry: string, run: () => Promise<T>) =>
      ops.backend(
        {
          system: 'mcp',
          source,
          name: `${method} ${source}`,
          attributes: { 'mcp.method.name': method, 'gen_ai.tool.name': entry },
        },
        run,
      );
    out.mcp = {
      ...mcp,
      callTool: (name, args, ctx) => span('tools/call', name, () => mcp.callTool(name, args, ctx)),
      readResource: (uri, signal) => span('resources/read', uri, () => mcp.readResource(uri, signal)),
      getPrompt: (name, args, signal) => span('prompts/get', name, () => mcp.getPrompt(name, args, signal)),
    } satisfies McpCapability;
  }
  return out;
}
