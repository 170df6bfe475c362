/**
 * `mcp-run dev`'s server side: the playground page (static files the build bundled from web/
 * into dist/dev/page/) and a dev-only event stream, both on the MCP server's own origin. The page
 * is a client of the MCP endpoint like any other; the stream carries only what MCP has no message
 * for: the outcome of each reload (what changed, or every error with its file:line:col and code
 * frame while the last good catalog keeps serving).
 *
 * The HTTP transport asks `route` after its Host and Origin guards (HttpOptions.pageRoute), so the
 * page and the stream are out of reach of other sites exactly as the MCP endpoint is. Those guards
 * let every Host through on a wildcard bind (0.0.0.0 or ::) named by no `--allowed-host`, and a
 * same-origin GET carries no Origin: a DNS-rebound page could read the stream. So the page checks
 * Host itself too (`hostFault`), on every bind.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../errors.js';
import { BUILD_ROOT } from '../util/build-root.js';

/** One reload's outcome as the page shows it. */
export type ReloadEvent =
  | { readonly ok: true; readonly at: string; readonly summary: string }
  | {
      readonly ok: false;
      readonly at: string;
      readonly summary: string;
      readonly errors: readonly PageDiagnostic[];
    };

/** A diagnostic as JSON for the page: where, what, the code frame. */
export interface PageDiagnostic {
  readonly code: string;
  readonly message: string;
  readonly file: string;
  readonly line?: number;
  readonly col?: number;
  readonly path?: string;
  readonly frame?: string;
  readonly hint?: string;
}

/** The files of the page, by the path it is served at. */
/**
 * Nothing but this origin: the page loads no script, style or data from anywhere else. ajv checks a
 * form against its schema with code it generates, hence 'unsafe-eval'.
 */
const PAGE_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-eval'; img-src 'self' data: blob:; media-src 'self' data: blob:; frame-ancestors 'none'";
/**
 * The frame a tool's MCP Apps view is written into (web/view-frame.html): the page frames it
 * sandboxed, so it runs on an opaque origin of its own, and this CSP holds for the view inside: its
 * inline script and styles, no network, nothing framed, framed only by this origin.
 */
const VIEW_FRAME_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; frame-ancestors 'self'";

const FILES: Readonly<
  Record<string, { readonly file: string; readonly type: string; readonly csp: string }>
> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8', csp: PAGE_CSP },
  '/_dev/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8', csp: PAGE_CSP },
  '/_dev/app.css': { file: 'app.css', type: 'text/css; charset=utf-8', csp: PAGE_CSP },
  '/_dev/view-frame.html': { file: 'view-frame.html', type: 'text/html; charset=utf-8', csp: VIEW_FRAME_CSP },
};
export const EVENTS_PATH = '/_dev/events';
const KEEP_ALIVE_MS = 15_000;

export interface PlaygroundOptions {
  /** The manifest, absolute: the page names it (and its folder is the default root it offers). */
  readonly manifest: string;
  /** The MCP endpoint's path on this origin. */
  readonly mcpPath: string;
  /** Where the built page lives (default: dist/dev/page/ beside this build). */
  readonly pageDir?: string;
  /** Why a request's `Host` is not one of this server's names, checked on every bind; else undefined. */
  readonly hostFault: (req: IncomingMessage) => string | undefined;
}

export class Playground {
  private readonly listeners = new Set<ServerResponse>();
  private last: ReloadEvent | undefined;
  private readonly files = new Map<string, Buffer>();
  private readonly pageDir: string;
  /** Secret values out of everything sent: the server's logger redacts (`redactWith`). */
  private redact: (text: string) => string = (text) => text;

  constructor(private readonly options: PlaygroundOptions) {
    this.pageDir = options.pageDir ?? fileURLToPath(new URL('dev/page/', BUILD_ROOT));
  }

  /** Answers the page's paths (GET and HEAD only) and returns true; false for every other path. */
  readonly route = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const served = FILES[path];
    if (served === undefined && path !== EVENTS_PATH) return false;
    const foreign = this.options.hostFault(req);
    if (foreign !== undefined) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`Forbidden: ${foreign}\n`);
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('Method Not Allowed\n');
      return true;
    }
    if (served !== undefined) this.file(res, served.file, served.type, served.csp);
    else if (!isLoopbackPeer(req.socket.remoteAddress)) {
      // The stream names the manifest's path and shows its code frames, before and beside any auth
      // the endpoint asks for: it goes to this machine only.
      res
        .writeHead(403, { 'Content-Type': 'text/plain' })
        .end('Forbidden: the dev event stream is served to this machine (loopback) only\n');
    } else this.stream(res);
    return true;
  };

  private file(res: ServerResponse, name: string, type: string, csp: string): void {
    let bytes = this.files.get(name);
    if (bytes === undefined) {
      try {
        bytes = readFileSync(`${this.pageDir}${name}`);
      } catch (err) {
        res
          .writeHead(500, { 'Content-Type': 'text/plain' })
          .end(`the playground page is not built (${(err as Error).message}); run npm run build\n`);
        return;
      }
      this.files.set(name, bytes);
    }
    res.writeHead(200, {
      'Content-Type': type,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': csp,
    });
    res.end(bytes);
  }

  /** The event stream: a `hello` (the manifest, the endpoint, the last reload), then each reload. */
  private stream(res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    const hello = {
      manifest: this.options.manifest,
      folder: dirname(this.options.manifest),
      mcpPath: this.options.mcpPath,
      ...(this.last && { last: this.last }),
    };
    res.write(event('hello', hello));
    this.listeners.add(res);
    const alive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    alive.unref();
    res.on('close', () => {
      clearInterval(alive);
      this.listeners.delete(res);
    });
  }

  redactWith(redact: (text: string) => string): void {
    this.redact = redact;
  }

  reloaded(summary: string): void {
    this.publish({ ok: true, at: new Date().toISOString(), summary: this.redact(summary) });
  }

  reloadFailed(summary: string, diagnostics: readonly Diagnostic[]): void {
    const redact = this.redact;
    const errors = diagnostics.map(
      (d): PageDiagnostic => ({
        code: d.code,
        message: redact(d.message),
        file: d.file,
        ...(d.line !== undefined && { line: d.line, col: d.col ?? 1 }),
        ...(d.path !== undefined && { path: d.path }),
        ...(d.frame !== undefined && { frame: redact(d.frame) }),
        ...(d.hint !== undefined && { hint: redact(d.hint) }),
      }),
    );
    this.publish({ ok: false, at: new Date().toISOString(), summary: redact(summary), errors });
  }

  private publish(reload: ReloadEvent): void {
    this.last = reload;
    const text = event('reload', reload);
    for (const res of this.listeners) res.write(text);
  }

  /** Ends every event stream (shutdown). */
  close(): void {
    for (const res of this.listeners) res.end();
    this.listeners.clear();
  }
}

const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** Whether a peer's address is this machine's (127.0.0.0/8 or ::1, IPv4-mapped or not). */
export function isLoopbackPeer(address: string | undefined): boolean {
  return address === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(address ?? '');
}
