/**
 * What an upstream writes (its names, its protocol version, its error messages, an HTTP status
 * text) reaches an error or a log line only escaped: a terminal escape in it is shown, not obeyed.
 * Against real upstreams: the raw stdio fixture test/fixtures/mcp-upstream/odd-lists.mjs, and a
 * TCP server that answers with a status line of its own (no HTTP library would write one).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCatalog } from '../../../src/catalog/compile.js';
import { type Diagnostic, ManifestError } from '../../../src/errors.js';
import { builtinKinds } from '../../../src/kinds/builtin.js';
import { StderrLogger } from '../../../src/log.js';
import { loadManifest } from '../../../src/manifest/load.js';
import { callContext, tempDir } from '../context.js';

const ODD = join(import.meta.dirname, '../../fixtures/mcp-upstream/odd-lists.mjs');
const ESC = '\u001b';
/** RIGHT-TO-LEFT OVERRIDE: JSON.stringify leaves it as it is, and a terminal turns the text around. */
const RLO = '\u202e';

async function problemsOf(yaml: string, warnings: Diagnostic[] = []): Promise<Diagnostic[]> {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(file, yaml);
  const registry = builtinKinds();
  try {
    const catalog = await compileCatalog(
      await loadManifest(file, registry, {}),
      registry,
      new StderrLogger('silent'),
      { onWarning: (w) => warnings.push(w) },
    );
    await catalog.dispose();
    if (warnings.length > 0) return [];
  } catch (err) {
    if (err instanceof ManifestError) return [...err.diagnostics];
    throw err;
  }
  assert.fail('the manifest compiled');
}

const odd = (env: string, rest = '') => `sources:
  odd:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ODD)}]
    env: { ${env} }
${rest}`;

/** Every message and hint together, checked to hold no raw escape and to show the escaped one. */
function shown(found: readonly Diagnostic[]): string {
  const text = found.map((d) => `${d.message}\n${d.hint ?? ''}`).join('\n');
  assert.ok(!text.includes(ESC) && !text.includes(RLO), `no raw escape in: ${JSON.stringify(text)}`);
  return text;
}

describe("an upstream's text in errors is escaped", () => {
  test('the protocol version it answers initialize with', async () => {
    const found = await problemsOf(odd('ODD_VERSION: "\\u202E2099-01-01"'));
    assert.equal(found[0]?.code, 'SOURCE_OPEN_FAILED');
    assert.match(shown(found), /protocol version "\\u202e2099-01-01"/);
  });

  test('the message of an error it answers', async () => {
    const found = await problemsOf(odd('ODD_LIST_ERROR: "broken \\e[31mred"'));
    assert.equal(found[0]?.code, 'SOURCE_OPEN_FAILED');
    assert.match(shown(found), /broken \\x1b\[31mred/);
  });

  test('the names it lists, in the list of known names of UPSTREAM_ENTRY_UNKNOWN', async () => {
    const found = await problemsOf(
      odd('ODD_NAMES: "look\\e]0;owned\\a,fine2"', 'tools:\n  t: { kind: mcp, source: odd, tool: fine3 }\n'),
    );
    assert.equal(found[0]?.code, 'UPSTREAM_ENTRY_UNKNOWN');
    assert.match(shown(found), /look\\x1b\]0;owned\\x07/);
  });

  test('a listed name that is no valid manifest name, in the warning that leaves it out', async () => {
    const warnings: Diagnostic[] = [];
    await problemsOf(odd('ODD_NAMES: "evil\\u202Eexe"', '    expose: { tools: {} }\n'), warnings);
    assert.match(shown(warnings), /the tool "evil\\u202eexe", whose name/);
  });

  test('the status text of an HTTP answer', async () => {
    // A status line written by hand: undici hands its reason phrase, escape and all, to statusText.
    const server: Server = createServer((socket) =>
      socket.once('data', () =>
        socket.end('HTTP/1.1 500 Bad\u001b[2J\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const found = await problemsOf(`sources:
  web: { kind: mcp, url: "http://127.0.0.1:${port}/mcp" }
`);
      assert.equal(found[0]?.code, 'SOURCE_OPEN_FAILED');
      assert.match(shown(found), /answered HTTP 500 Bad\\x1b\[2J/);
    } finally {
      server.close();
    }
  });
});

/**
 * A Streamable HTTP upstream in a few lines (JSON answers, no session, no GET stream): one tool, `headers`, that
 * answers the request headers it got, so a test sees what would come back to a caller.
 */
async function httpUpstream(): Promise<{ server: HttpServer; url: string }> {
  const server = createHttpServer(async (req, res) => {
    // No stream of its own (the GET mcp-run opens after the handshake): 405, as the spec says.
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    const { id, method, params } = JSON.parse(body);
    if (id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const results: Record<string, unknown> = {
      initialize: {
        protocolVersion: params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'echo-headers', version: '1.0.0' },
      },
      'tools/list': { tools: [{ name: 'headers', inputSchema: { type: 'object' } }] },
      'tools/call': { content: [{ type: 'text', text: `got ${JSON.stringify(req.headers)} at ${req.url}` }] },
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result: results[method] ?? {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

describe("an HTTP upstream's credentials outside `auth:`", () => {
  test('headers: values and the query values of the url are redacted from what comes back, and from an error about the url', async () => {
    const { server, url } = await httpUpstream();
    const file = join(tempDir(), 'mcp.yaml');
    writeFileSync(
      file,
      `sources:
  web:
    kind: mcp
    url: "${url}?api_key=query-secret-1&v=2"
    headers: { x-api-key: header-secret-2, authorization: "Bearer bearer-secret-3" }
    expose: { tools: {} }
`,
    );
    const registry = builtinKinds();
    const catalog = await compileCatalog(
      await loadManifest(file, registry, {}),
      registry,
      new StderrLogger('silent'),
    );
    try {
      const tool = catalog.tools.get('headers')!;
      const echoed = JSON.stringify((await tool.call({}, callContext())).content);
      assert.match(echoed, /x-api-key/, 'the upstream saw the header');
      for (const secret of ['query-secret-1', 'header-secret-2', 'bearer-secret-3'])
        assert.ok(!echoed.includes(secret), `${secret} comes back redacted: ${echoed}`);
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      const failed = JSON.stringify((await tool.call({}, callContext())).content);
      assert.match(
        failed,
        /cannot reach upstream web at http:\/\/127\.0\.0\.1:\d+\/mcp\?api_key=\*\*\*&v=\*\*\*/,
      );
      assert.ok(!failed.includes('query-secret-1'), failed);
    } finally {
      server.closeAllConnections();
      server.close();
      await catalog.dispose();
    }
  });
});
