import { relative, resolve } from 'node:path';
import { loadCatalog } from '../catalog/load.js';
import { Reloader } from '../catalog/reload.js';
import { type Catalog, CatalogRef } from '../catalog/types.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { type LogThreshold, StderrLogger } from '../log.js';
import { createProtocol, type Protocol } from '../protocol/server.js';
import { authFromEnv, type HttpTransport, ProblemError, serveHttp } from '../transports/http/server.js';
import { serveStdio } from '../transports/stdio.js';

export interface ServeOptions {
  readonly logLevel: LogThreshold;
  /** Hot reload on changes to the manifest and the files it names (`--no-watch` turns it off). */
  readonly watch: boolean;
  /** Serve Streamable HTTP instead of stdio, with the options below. */
  readonly http?: boolean;
  readonly port?: number;
  readonly host?: string;
  readonly path?: string;
  readonly allowedHost?: string[];
  readonly allowedOrigin?: string[];
  /** Names of environment variables holding the accepted bearer tokens / API keys. */
  readonly authTokenEnv?: string;
  readonly apiKeyEnv?: string;
  /** `--sse-poll-ms`: SSE polling for 2025-11-25 sessions; absent: MCP_RUN_SSE_POLL_MS, else never. */
  readonly ssePollMs?: number;
}

/**
 * `mcp-run [manifest]`: compile the manifest and serve it on stdio until stdin ends or a signal
 * arrives. A manifest with errors prints them all and exits 1 before anything is served.
 */
export async function serveCommand(file: string, options: ServeOptions): Promise<void> {
  const log = new StderrLogger(options.logLevel);
  const registry = builtinKinds();
  let catalog: Catalog;
  let text: string;
  try {
    ({ catalog, text } = await loadCatalog(file, registry, log));
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    process.stderr.write(
      `${log.redact(err.message)}\n\nmcp-run: not serving ${file}: fix the errors above\n`,
    );
    process.exit(1);
  }

  const ref = new CatalogRef(catalog);
  // Without watching, neither lists nor resource contents are ever re-read: advertise neither.
  const protocol = createProtocol(ref, { log, listChanged: options.watch, resourceUpdates: options.watch });
  const reloader = options.watch
    ? new Reloader({
        file: resolve(file),
        ref,
        registry,
        log,
        listener: {
          listChanged: (categories) => protocol.notifyListChanged(categories),
          resourceUpdated: (uri) => protocol.notifyResourceUpdated(uri),
          reloadFailed: (summary) => protocol.notifyLog('error', summary),
        },
      })
    : undefined;
  reloader?.start(text);
  void reloader?.ready().then(() => log.debug(`watching ${file} and the files it names for changes`));
  process.on('SIGHUP', () => void reloader?.reload());
  if (options.http) return serveOverHttp(file, ref, protocol, log, options, async () => reloader?.close());
  const stdio = serveStdio(protocol, { log });
  const stop = async () => {
    protocol.close();
    await reloader?.close();
    await stdio.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (process.stdin.isTTY) log.info(banner(file, catalog));
  else log.debug(`serving ${file} on stdio`);

  await stdio.closed;
  await reloader?.close();
  await ref.current.dispose();
  process.exit(0);
}

function banner(file: string, catalog: Catalog): string {
  const counts = [
    `${catalog.tools.size} tools`,
    `${catalog.resources.size + catalog.templates.length} resources`,
    `${catalog.prompts.size} prompts`,
  ].join(', ');
  return [
    `serving ${relative(process.cwd(), file) || file} on stdio (${counts}).`,
    'An MCP client starts this command and speaks JSON-RPC on its stdin; press Ctrl-D to stop.',
    `Client config: { "command": "npx", "args": ["mcp-run", "${file}"] }`,
  ].join('\n  ');
}

/**
 * `mcp-run --http`: serve until SIGTERM/SIGINT, then shut down gracefully (in-flight calls finish,
 * listen streams get their final result) and exit 0. The first line on stderr is
 * `mcp-run: listening on <url>`, for scripts and tests that start it with `--port 0`.
 */
async function serveOverHttp(
  file: string,
  ref: CatalogRef,
  protocol: Protocol,
  log: StderrLogger,
  options: ServeOptions,
  stopWatching: () => Promise<void>,
): Promise<void> {
  // Signal handlers go in before the port opens: a SIGTERM that arrives right after the
  // "listening on" line must shut down gracefully, not kill the process with the default action.
  let http: HttpTransport | undefined;
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await stopWatching();
    await http?.close();
    await ref.current.dispose();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const auth = authFromEnv({ tokenEnv: options.authTokenEnv, apiKeyEnv: options.apiKeyEnv }, process.env);
    log.addSecrets([...(auth.bearerTokens ?? []), ...(auth.apiKeys ?? [])]);
    http = await serveHttp(protocol, {
      log,
      auth,
      port: options.port,
      host: options.host,
      path: options.path,
      allowedHosts: options.allowedHost,
      allowedOrigins: options.allowedOrigin,
      ...(options.ssePollMs !== undefined && { ssePollMs: options.ssePollMs }),
    });
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    process.stderr.write(`mcp-run: ${err.message}\n`);
    process.exit(err.problem.code === 'HTTP_LISTEN_FAILED' ? 1 : 2);
  }
  if (stopping) {
    // A signal came while the port was opening: close what just opened, and stop() exits.
    await http.close();
    return;
  }
  log.info(`listening on ${http.url}`);
  const catalog = ref.current;
  log.info(
    `serving ${relative(process.cwd(), file) || file} (${catalog.tools.size} tools, ` +
      `${catalog.resources.size + catalog.templates.length} resources, ${catalog.prompts.size} prompts); ` +
      `client config: { "url": "${http.url}" }`,
  );
}
