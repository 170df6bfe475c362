/**
 * The test host page (host/host.ts, ext-apps' AppBridge) served on 127.0.0.1 under the strictest CSP
 * a host may frame a view under; the browser tests of views load it (views.test.ts,
 * upstream-view.test.ts).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';

/** No network, no eval, no plugin: the strictest CSP a host may frame a view under. */
const CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'none'";

/** Serves the host page and its bundle on 127.0.0.1 under the CSP. */
export async function serveHost(): Promise<{ server: Server; url: string }> {
  const bundled = await build({
    entryPoints: [join(import.meta.dirname, 'host/host.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    logLevel: 'warning',
  });
  const js = bundled.outputFiles[0]?.text ?? '';
  const server = createServer((req, res) => {
    const headers = { 'content-security-policy': CSP };
    if (req.url === '/host.js') res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end(js);
    else
      res
        .writeHead(200, { ...headers, 'content-type': 'text/html' })
        .end(
          '<!doctype html><html><head><title>host</title></head><body></body><script src="/host.js"></script></html>',
        );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}
