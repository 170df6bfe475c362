/**
 * `mcp-run dev [manifest]`: serve the manifest on Streamable HTTP, as `--http` does, with the
 * playground page beside the endpoint on the same origin (src/dev/, docs/dev.md). It always watches
 * the manifest: the page shows each reload. The page's URL goes to stdout.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Playground } from '../dev/playground.js';
import type { LogThreshold } from '../log.js';
import { Guards, interfaceAddresses } from '../transports/http/guards.js';
import { type ServeOptions, serveCommand } from './serve.js';
import { SERVE_DEFAULTS } from './serve-defaults.js';

export interface DevOptions {
  readonly port: number;
  readonly host: string;
  readonly open?: boolean;
  readonly logLevel: LogThreshold;
  readonly allowUnauthenticatedRemote?: boolean;
  /** Beyond loopback, the page's own origin is one of these (the guards know only loopback ones). */
  readonly allowedOrigin?: string[];
  readonly allowedHost?: string[];
}

export async function devCommand(file: string, options: DevOptions): Promise<void> {
  // The page and its event stream check Host on every bind: on a wildcard one, this machine's
  // addresses and the --allowed-host names (the MCP endpoint keeps the plain command's rule; its
  // POSTs carry an Origin, which is checked on every bind).
  const pageGuards = new Guards({
    bindHost: options.host,
    allowedHosts: options.allowedHost ?? [],
    allowedOrigins: [],
    wildcardNames: interfaceAddresses(),
  });
  const playground = new Playground({
    manifest: resolve(file),
    mcpPath: SERVE_DEFAULTS.path,
    hostFault: (req) => pageGuards.hostFault(req),
  });
  const serve: ServeOptions = {
    ...SERVE_DEFAULTS,
    logLevel: options.logLevel,
    http: true,
    watch: true,
    port: options.port,
    host: options.host,
    allowedOrigin: options.allowedOrigin ?? [],
    allowedHost: options.allowedHost ?? [],
    ...(options.allowUnauthenticatedRemote && { allowUnauthenticatedRemote: true }),
    playground,
    onListening: (url) => {
      const page = new URL('/', url).href;
      process.stdout.write(`mcp-run dev: the playground is at ${page} (MCP endpoint ${url})\n`);
      if (options.open) openBrowser(page);
    },
  };
  await serveCommand(file, serve);
}

/** `--open`: the desktop's own opener, argv only; a missing one is a warning, not a failure. */
function openBrowser(url: string): void {
  const opener =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', (err) =>
    process.stderr.write(`mcp-run dev: cannot open a browser (${err.message}); open ${url}\n`),
  );
  child.unref();
}
