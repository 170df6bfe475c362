/**
 * The CLI treats what a server says as untrusted: `mcp-run diff URL` follows no redirect to another
 * origin (the request and its --header credentials go only where the user said), and the names and
 * texts a server or a tool sends reach a person's terminal with their control characters escaped
 * (`\x1b`, `\u202e`), while `--json` and `--raw` keep them exact. Real HTTP servers on 127.0.0.1 (a
 * small MCP server written here, so a tool name can hold anything) and the real built CLI.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCliAsync } from '../helpers/run-cli.js';

const LINK = '\x1b]8;;http://evil\x07click\x1b]8;;\x07';
const CLEAR = '\x1b[2J';
const TOOL = `evil${LINK}${CLEAR}`;
const URI = 'test://r\u202efdp.exe\r\x9b31m';
/** Whatever a terminal would act on: C0 but tab and newline, DEL, C1, bidi overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

interface Served {
  readonly origin: string;
  /** Requests received, by path. */
  readonly seen: { path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

/** A server on 127.0.0.1; `answer` gets each request with its body read. */
async function serve(
  answer: (req: IncomingMessage, body: string, res: ServerResponse, origin: string) => void,
): Promise<Served> {
  const seen: Served['seen'] = [];
  let origin = '';
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => answer(req, body, res, origin));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 2025-11-25 MCP server in a few lines: a tool and a resource whose names hold escapes. */
function mcp(req: IncomingMessage, body: string, res: ServerResponse): void {
  if (req.method !== 'POST') return void res.writeHead(200).end();
  const message = JSON.parse(body);
  if (message.id === undefined) return void res.writeHead(202).end();
  const results: Record<string, unknown> = {
    initialize: {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, resources: {} },
      serverInfo: { name: 'hostile', version: '1' },
    },
    'tools/list': {
      tools: [{ name: TOOL, description: `${LINK} ${CLEAR}`, inputSchema: { type: 'object' } }],
    },
    'resources/list': { resources: [{ uri: URI, name: 'r' }] },
    'resources/templates/list': { resourceTemplates: [] },
  };
  res
    .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'the-session' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: results[message.method] ?? {} }));
}

const BEFORE = `server: { name: before, version: 1.0.0 }
tools:
  plain:
    kind: content
    description: A plain tool.
    content: [{ text: plain }]
`;

describe('mcp-run diff URL: what a server says is shown, not obeyed', () => {
  const files = tempFiles({ 'before.yaml': BEFORE });
  const before_ = join(files.dir, 'before.yaml');
  let hostile: Served;
  before(async () => {
    hostile = await serve(mcp);
  });
  after(async () => {
    await hostile.close();
    files.cleanup();
  });

  test('the human output escapes control characters and bidi overrides', async () => {
    const run = await runCliAsync(['diff', before_, `${hostile.origin}/mcp`]);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, RAW_CONTROL);
    assert.ok(
      run.stdout.includes('tool `evil\\x1b]8;;http://evil\\x07click\\x1b]8;;\\x07\\x1b[2J` added'),
      run.stdout,
    );
    assert.ok(run.stdout.includes('resource `test://r\\u202efdp.exe\\x0d\\u009b31m` added'), run.stdout);
  });

  test('--json keeps every string exact, as JSON escapes', async () => {
    const run = await runCliAsync(['diff', before_, `${hostile.origin}/mcp`, '--json']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes('evil\\u001b]8;;http://evil\\u0007click\\u001b]8;;\\u0007\\u001b[2J'));
    const names = JSON.parse(run.stdout).changes.map((c: { name: string }) => c.name);
    assert.deepEqual(names.sort(), [TOOL, URI, 'plain'].sort());
  });

  test("a server's error text is escaped too", async () => {
    const failing = await serve((_req, _body, res) => res.writeHead(500).end(`broken ${CLEAR}${LINK}`));
    try {
      const run = await runCliAsync(['diff', before_, `${failing.origin}/mcp`]);
      assert.equal(run.code, 3);
      assert.doesNotMatch(run.stderr, RAW_CONTROL);
      assert.match(run.stderr, /initialize: HTTP 500 broken \\x1b\[2J\\x1b\]8;;http:\/\/evil\\x07click/);
    } finally {
      await failing.close();
    }
  });
});

describe('mcp-run diff URL: redirects', () => {
  const files = tempFiles({ 'before.yaml': BEFORE });
  const before_ = join(files.dir, 'before.yaml');
  after(() => files.cleanup());

  test('a redirect to another origin is refused, and that origin receives nothing', async () => {
    const other = await serve(mcp);
    const redirecting = await serve((_req, _body, res) =>
      res.writeHead(307, { location: `${other.origin}/mcp` }).end(),
    );
    try {
      const run = await runCliAsync([
        'diff',
        before_,
        `${redirecting.origin}/mcp`,
        '--header',
        'Authorization: Bearer s3cret',
        '--header',
        'X-Api-Key: k3y',
      ]);
      assert.equal(other.seen.length, 0, JSON.stringify(other.seen));
      assert.equal(redirecting.seen.length, 1);
      assert.equal(run.code, 3, run.stdout);
      assert.match(run.stderr, new RegExp(`answered 307, a redirect to ${other.origin}/mcp: another origin`));
      assert.match(run.stderr, /give its URL instead/);
    } finally {
      await Promise.all([other.close(), redirecting.close()]);
    }
  });

  test('a 307 within the origin is followed with its headers; a 302 is refused', async () => {
    const server = await serve((req, body, res, origin) => {
      if (req.url === '/old') res.writeHead(307, { location: '/mcp' }).end();
      else if (req.url === '/found') res.writeHead(302, { location: `${origin}/mcp` }).end();
      else mcp(req, body, res);
    });
    try {
      const followed = await runCliAsync([
        'diff',
        before_,
        `${server.origin}/old`,
        '--header',
        'Authorization: Bearer s3cret',
      ]);
      assert.equal(followed.code, 0, followed.stderr);
      assert.match(followed.stdout, /resource `test:\/\/r/);
      const atEndpoint = server.seen.filter((r) => r.path === '/mcp');
      assert.ok(atEndpoint.length >= 3, JSON.stringify(server.seen));
      assert.ok(atEndpoint.every((r) => r.authorization === 'Bearer s3cret'));

      const found = await runCliAsync(['diff', before_, `${server.origin}/found`]);
      assert.equal(found.code, 3);
      assert.match(found.stderr, /answered 302, .*would turn the request into a GET; give that URL instead/);
    } finally {
      await server.close();
    }
  });
});

const LOCAL = `server: { name: local, version: 1.0.0 }
tools:
  read_orders:
    kind: content
    description: "Reads orders \\e]8;;http://evil\\aclick\\e]8;;\\a\\e[2J"
    content: [{ text: "done\\e[2J\\u202e\\r" }]
  noisy:
    kind: shell
    description: Logs an escape.
    command: [sh, -c, 'printf "log\\033[2J\\n" >&2; echo ok']
resources:
  notes: { kind: text, uri: "test://notes", text: "notes\\e]0;title\\a", description: Notes. }
`;

describe('list, call and read: text from outside mcp-run is escaped for a person only', () => {
  const files = tempFiles({ 'mcp.yaml': LOCAL });
  const manifest = join(files.dir, 'mcp.yaml');
  after(() => files.cleanup());

  test('list escapes; list --json is exact', async () => {
    const human = await runCliAsync(['list', manifest]);
    assert.equal(human.code, 0, human.stderr);
    assert.doesNotMatch(human.stdout, RAW_CONTROL);
    assert.ok(human.stdout.includes('Reads orders \\x1b]8;;http://evil\\x07click\\x1b]8;;\\x07\\x1b[2J'));
    const json = await runCliAsync(['list', manifest, '--json']);
    const tool = JSON.parse(json.stdout).tools.find((t: { name: string }) => t.name === 'read_orders');
    assert.equal(tool.description, `Reads orders ${LINK}${CLEAR}`);
  });

  test('call escapes the result and the logs; --raw is exact', async () => {
    const human = await runCliAsync(['call', 'read_orders', '--manifest', manifest]);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stdout, 'done\\x1b[2J\\u202e\\x0d\n');
    const raw = await runCliAsync(['call', 'read_orders', '--manifest', manifest, '--raw']);
    assert.equal(JSON.parse(raw.stdout).content[0].text, 'done\x1b[2J\u202e\r');
    const noisy = await runCliAsync(['call', 'noisy', '--manifest', manifest]);
    assert.equal(noisy.code, 0, noisy.stderr);
    assert.doesNotMatch(noisy.stderr, RAW_CONTROL);
    assert.match(noisy.stderr, /log\\x1b\[2J/);
  });

  test('read escapes; --raw is exact', async () => {
    const human = await runCliAsync(['read', 'test://notes', '--manifest', manifest]);
    assert.equal(human.stdout, 'notes\\x1b]0;title\\x07\n');
    const raw = await runCliAsync(['read', 'test://notes', '--manifest', manifest, '--raw']);
    assert.equal(JSON.parse(raw.stdout).contents[0].text, 'notes\x1b]0;title\x07');
  });
});

describe('import openapi: what the document says is escaped in the summary', () => {
  const doc = {
    openapi: '3.0.3',
    info: { title: 'Shop', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: {
      '/ok': { get: { operationId: 'ok', responses: { 200: { description: 'ok' } } } },
      [`/evil${CLEAR}`]: { trace: { responses: { 200: { description: 'no' } } } },
    },
  };
  const files = tempFiles({ 'openapi.json': JSON.stringify(doc) });
  after(() => files.cleanup());

  test('a warning quoting a path shows its escapes; the manifest on stdout is the import', async () => {
    const run = await runCliAsync(['import', 'openapi', join(files.dir, 'openapi.json')]);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, RAW_CONTROL);
    assert.match(run.stderr, /warning: not imported: TRACE \/evil\\x1b\[2J/);
    assert.match(run.stdout, /^tools:/m);
  });
});
