/**
 * An `mcp` source over Streamable HTTP with credentials, against a real upstream on 127.0.0.1: the
 * v1 server library's Streamable HTTP transport (one stateful session, so a request without the
 * session id it gave would fail) behind a bearer check, and a real token endpoint for OAuth client
 * credentials. The upstream echoes the Authorization header it got; the source redacts it from
 * what the model sees. A wrong token fails the open with the upstream's status.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { compileCatalog } from '../../../src/catalog/compile.js';
import type { Catalog } from '../../../src/catalog/types.js';
import { ManifestError } from '../../../src/errors.js';
import { builtinKinds } from '../../../src/kinds/builtin.js';
import { StderrLogger } from '../../../src/log.js';
import { loadManifest } from '../../../src/manifest/load.js';
import { callContext, tempDir } from '../context.js';

const STATIC = 'static-token-5d1e8a2f';
const ISSUED = 'issued-token-c07b93e4';
const SECRET = 'client-secret-77aa01';

let server: Server;
let base: string;
let sessionCount = 0;
const seenAuth: string[] = [];

async function body(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text === '' ? undefined : text;
}

/** An upstream per path (/static, /issued), each checking its own token; a session per initialize. */
function upstreamFor(expected: string) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req: IncomingMessage, res: ServerResponse) => {
    const auth = req.headers.authorization ?? '';
    seenAuth.push(auth);
    if (auth !== `Bearer ${expected}`) {
      res.writeHead(401).end();
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      const mcp = new McpServer({ name: 'authed', version: '1.0.0' }, { capabilities: { logging: {} } });
      mcp.registerTool(
        'whoauth',
        { description: 'The Authorization header it got.', inputSchema: {} },
        async () => ({
          content: [{ type: 'text', text: `you sent ${auth}` }],
        }),
      );
      mcp.registerTool(
        'chatty',
        { description: 'Logs about its call, then answers.', inputSchema: {} },
        async (_a, extra) => {
          await extra.sendNotification({
            method: 'notifications/message',
            params: { level: 'warning', logger: 'chatty', data: `halfway, with ${auth}` },
          });
          return { content: [{ type: 'text', text: 'done' }] };
        },
      );
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => {
          sessionCount++;
          return randomUUID();
        },
        onsessioninitialized: (sid) => {
          sessions.set(sid, created);
        },
      });
      transport = created;
      await mcp.connect(created);
    }
    const text = await body(req);
    await transport.handleRequest(req, res, text === undefined ? undefined : JSON.parse(String(text)));
  };
}

before(async () => {
  const routes = { '/static': upstreamFor(STATIC), '/issued': upstreamFor(ISSUED) };
  server = createServer((req, res) => {
    if (req.url === '/token') {
      const basic = Buffer.from(`mcp-run:${SECRET}`).toString('base64');
      if (req.headers.authorization !== `Basic ${basic}`) return void res.writeHead(401).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ access_token: ISSUED, token_type: 'Bearer', expires_in: 3600 }));
    }
    const route = routes[req.url as keyof typeof routes];
    if (!route) return void res.writeHead(404).end();
    void route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function compile(source: string): Promise<Catalog> {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(
    file,
    `sources:\n  up:\n${source}tools:\n  who: { kind: mcp, source: up, tool: whoauth }\n  chatty: { kind: mcp, source: up, tool: chatty }\n`,
  );
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

describe('an mcp source over Streamable HTTP with credentials', () => {
  test('a static bearer token is sent, and redacted from what the model sees', async () => {
    const catalog = await compile(
      `    kind: mcp\n    url: ${base}/static\n    auth: { bearer: ${STATIC} }\n`,
    );
    try {
      const result = await catalog.tools.get('who')!.call({}, callContext());
      const text = (result.content[0] as { text: string }).text;
      assert.equal(text, 'you sent Bearer ***');
      assert.ok(seenAuth.includes(`Bearer ${STATIC}`));
    } finally {
      await catalog.dispose();
    }
  });

  test('OAuth client credentials: the issued token is sent, and redacted', async () => {
    const before = sessionCount;
    const catalog = await compile(
      `    kind: mcp\n    url: ${base}/issued\n    auth: { oauth: { tokenUrl: ${base}/token, clientId: mcp-run, clientSecret: ${SECRET} } }\n`,
    );
    try {
      const result = await catalog.tools.get('who')!.call({}, callContext());
      assert.equal((result.content[0] as { text: string }).text, 'you sent Bearer ***');
      assert.ok(seenAuth.includes(`Bearer ${ISSUED}`));
      assert.equal(sessionCount, before + 1, 'one session for the listing and the call');
    } finally {
      await catalog.dispose();
    }
  });

  test("the upstream's log message about a call, on that call's SSE answer, reaches the caller redacted", async () => {
    const catalog = await compile(
      `    kind: mcp\n    url: ${base}/static\n    auth: { bearer: ${STATIC} }\n`,
    );
    try {
      const logs: unknown[][] = [];
      const result = await catalog.tools.get('chatty')!.call(
        {},
        {
          ...callContext(),
          log: (...args: unknown[]) => {
            logs.push(args);
          },
        },
      );
      assert.equal((result.content[0] as { text: string }).text, 'done');
      assert.deepEqual(logs, [['warning', 'halfway, with Bearer ***', 'chatty']]);
    } finally {
      await catalog.dispose();
    }
  });

  test('a token the upstream refuses fails the open with its status', async () => {
    await assert.rejects(
      compile(`    kind: mcp\n    url: ${base}/static\n    auth: { bearer: wrong-token-0000 }\n`),
      (err: unknown) =>
        err instanceof ManifestError &&
        err.diagnostics[0]?.code === 'SOURCE_OPEN_FAILED' &&
        /HTTP 401/.test(err.diagnostics[0].message) &&
        !err.diagnostics[0].message.includes('wrong-token-0000'),
    );
  });
});
