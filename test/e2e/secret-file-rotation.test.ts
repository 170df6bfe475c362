// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${file:…} in plain strings is the syntax under test.
/**
 * A `${file:…}` secret rotated while the server runs: `mcp-run --http` serves an http tool whose
 * source sends `Authorization: Bearer ${file:./api-token}` to a real upstream on 127.0.0.1; the file
 * is rewritten (as a Kubernetes secret update would), hot reload rebuilds the catalog, and the next
 * call carries the new token. The token never reaches the model (results redact it) or stderr.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { tempFiles } from '../helpers/demo.js';
import { ServerLog } from '../helpers/reload-harness.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const OLD = 'file-token-before-rotation-1234';
const NEW = 'file-token-after-rotation-5678';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

describe('${file:…} secret rotation with hot reload', () => {
  let upstream: Server;
  let files: ReturnType<typeof tempFiles>;
  let server: ServedCli;
  let log: ServerLog;
  const seen: string[] = [];

  before(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.setHeader('content-type', 'application/json');
      // An upstream that echoes the credential: the result must not show it.
      res.end(JSON.stringify({ echoed: req.headers.authorization }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    files = tempFiles({
      'api-token': `${OLD}\n`,
      'mcp.yaml': [
        'sources:',
        `  api: { kind: http, baseUrl: "${api}", auth: { bearer: "\${file:./api-token}" } }`,
        'tools:',
        '  ping: { kind: http, source: api, description: Pings the API., path: /ping }',
        '',
      ].join('\n'),
    });
    server = await spawnHttpCli([join(files.dir, 'mcp.yaml'), '--log-level', 'debug']);
    log = new ServerLog(server.child.stderr);
    log.text = server.stderr();
    await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
  });
  after(async () => {
    await server?.stop();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    files?.cleanup();
  });

  async function ping(): Promise<string> {
    const client = new ClientV2({ name: 'rotation', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(server.url)));
    const res = await client.callTool({ name: 'ping', arguments: {} });
    await client.close();
    return JSON.stringify(res);
  }

  it('sends the file’s token, then the rotated one after the file changes; neither reaches the result or the log', async () => {
    const first = await ping();
    assert.equal(seen.at(-1), `Bearer ${OLD}`, 'the trailing newline was trimmed');
    assert.ok(!first.includes(OLD), `the result shows the token: ${first}`);
    assert.match(first, /Bearer \*\*\*/);

    await log.edit(join(files.dir, 'api-token'), `${NEW}\n`);
    const second = await ping();
    assert.equal(seen.at(-1), `Bearer ${NEW}`);
    assert.ok(!second.includes(NEW), `the result shows the token: ${second}`);
    const stderr = log.text;
    assert.ok(!stderr.includes(OLD) && !stderr.includes(NEW), 'stderr holds a token');
  });
});
