/**
 * `mcp-run dev --host 0.0.0.0`: the playground's page and its event stream (which names the
 * manifest's path) check `Host` on a wildcard bind too, so a DNS-rebound page (Host: evil.example,
 * no Origin on a same-origin GET) gets 403. This machine's own names and `--allowed-host` pass.
 * The real built CLI, real sockets; node:http, since fetch cannot set Host.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startDev } from '../helpers/browser.js';
import { tempFiles } from '../helpers/demo.js';

const MANIFEST = `server: { name: wildcard-dev, version: 1.0.0 }
tools:
  hello:
    kind: content
    description: Says hello.
    content: [{ text: hello }]
`;
const REMOTE = ['--host', '0.0.0.0', '--allow-unauthenticated-remote'];

/**
 * GET `path` on the dev server's port with this Host: the status and the body (an event stream is
 * read up to its first event, then dropped).
 */
function getWithHost(page: string, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, page), { headers: { Host: host }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (res.headers['content-type']?.startsWith('text/event-stream') && body.includes('\n\n')) {
          req.destroy();
          resolve({ status: res.statusCode!, body });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A non-loopback IPv4 address of this machine, when it has one. */
const lanAddress = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .find((i) => i.family === 'IPv4' && !i.internal)?.address;

describe('mcp-run dev on a wildcard address', () => {
  test('refuses a foreign Host on the page and the event stream, serves its own names', async () => {
    const files = tempFiles({ 'mcp.yaml': MANIFEST });
    const manifest = join(files.dir, 'mcp.yaml');
    const dev = await startDev(manifest, REMOTE);
    try {
      const port = new URL(dev.page).port;
      for (const path of ['/', '/_dev/app.js', '/_dev/events']) {
        const rebound = await getWithHost(dev.page, path, `evil.example:${port}`);
        assert.equal(rebound.status, 403, `${path}: ${rebound.body}`);
        assert.doesNotMatch(rebound.body, /mcp\.yaml|wildcard-dev/, path);
        assert.match(rebound.body, /Host "evil\.example:\d+" is not allowed/);
      }
      const own = [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        ...(lanAddress ? [`${lanAddress}:${port}`] : []),
      ];
      for (const host of own) {
        const events = await getWithHost(dev.page, '/_dev/events', host);
        assert.equal(events.status, 200, `${host}: ${events.body}`);
        assert.match(events.body, /^event: hello\ndata: /);
        assert.equal(JSON.parse(events.body.split('data: ')[1]!).manifest, manifest);
        const page = await getWithHost(dev.page, '/', host);
        assert.equal(page.status, 200, host);
        assert.match(page.body, /<html/i);
      }
    } finally {
      assert.equal(await dev.stop(), 0);
      files.cleanup();
    }
  });

  test('serves a Host named by --allowed-host', async () => {
    const files = tempFiles({ 'mcp.yaml': MANIFEST });
    const dev = await startDev(join(files.dir, 'mcp.yaml'), [...REMOTE, '--allowed-host', 'evil.example']);
    try {
      const host = `evil.example:${new URL(dev.page).port}`;
      const events = await getWithHost(dev.page, '/_dev/events', host);
      assert.equal(events.status, 200, events.body);
      assert.match(events.body, /^event: hello\n/);
      assert.equal((await getWithHost(dev.page, '/', host)).status, 200);
      // Another name is still refused.
      assert.equal((await getWithHost(dev.page, '/_dev/events', 'other.example')).status, 403);
    } finally {
      assert.equal(await dev.stop(), 0);
      files.cleanup();
    }
  });
});
