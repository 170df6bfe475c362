// The http source and tool against a real node:http upstream on 127.0.0.1 that echoes what it got.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ToolResult } from '../../../src/catalog/types.js';
import type { OpenedSource, SourceCapabilities, ToolCommon } from '../../../src/kinds/contract/kinds.js';
import { type HttpSourceConfig, httpSource } from '../../../src/kinds/http/source.js';
import { type HttpToolConfig, httpTool } from '../../../src/kinds/http/tool.js';
import { callContext, testContext } from '../context.js';
import { echo, type Handler, send, startUpstream, type Upstream } from './upstream.js';

const TOKEN = 'tok-3f9a1c77e2b54d08';
const PASSWORD = 'pa55-w0rd-secret';
const API_KEY = 'key/with+special=chars';

let retryCounts = new Map<string, number>();
/** Answers 503 `times` times (with the given headers), then echoes. */
const flaky =
  (times: number, headers: Record<string, string>): Handler =>
  (seen, res) => {
    const key = seen.url.split('?')[0]!;
    const n = (retryCounts.get(key) ?? 0) + 1;
    retryCounts.set(key, n);
    if (n <= times) send(res, 503, { message: 'busy' }, headers);
    else echo(seen, res);
  };

const notFound: Handler = (_seen, res) => send(res, 404, { message: 'no such item' });

const routes: [prefix: string, handler: Handler][] = [
  ['/api/v1/missing', (_s, res) => send(res, 404, { message: 'Not Found', token_seen: `Bearer ${TOKEN}` })],
  ['/api/v1/list', (_s, res) => send(res, 200, [{ id: 1 }, { id: 2 }])],
  [
    '/api/v1/leaky',
    (_s, res) => {
      // Written by hand: an own "__proto__" key, as JSON.parse makes it.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"plain":{"a":1},"${TOKEN}":{"deep":[[1,"x ${TOKEN}"],["y"]]},"__proto__":{"p":"${TOKEN}"}}`);
    },
  ],
  [
    '/api/v1/text',
    (_s, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('plain words\n');
    },
  ],
  [
    '/api/v1/image',
    (_s, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    },
  ],
  [
    '/api/v1/audio',
    (_s, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.from('RIFF\0\0WAVE'));
    },
  ],
  [
    '/api/v1/binary',
    (_s, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.from([0, 255, 1, 254]));
    },
  ],
  [
    '/api/v1/empty',
    (_s, res) => {
      res.writeHead(204);
      res.end();
    },
  ],
  ['/api/v1/flaky-zero', flaky(2, { 'retry-after': '0' })],
  ['/api/v1/flaky-date', flaky(1, { 'retry-after': new Date(Date.now() - 60_000).toUTCString() })],
  ['/api/v1/flaky-long', flaky(5, { 'retry-after': '3600' })],
  ['/api/v1/flaky-plain', flaky(1, {})],
  ['/api/v1/flaky-three', flaky(5, { 'retry-after': '3' })],
  ['/api/v1/flaky-one', flaky(5, { 'retry-after': '1' })],
  ['/api/v1/always-busy', flaky(99, { 'retry-after': '0' })],
  [
    '/api/v1/reset-once',
    (seen, res, req) => {
      const n = (retryCounts.get('reset') ?? 0) + 1;
      retryCounts.set('reset', n);
      if (n === 1) req.socket.destroy();
      else echo(seen, res);
    },
  ],
  [
    '/api/v1/big',
    (_s, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
      res.end('x'.repeat(5000));
    },
  ],
  [
    '/api/v1/big-chunked',
    (_s, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('y'.repeat(800));
      setImmediate(() => res.end('y'.repeat(800)));
    },
  ],
  ['/api/v1/hang', () => {}],
];

let upstream: Upstream;
const sources: Record<string, Partial<SourceCapabilities>> = {};
const opened: OpenedSource[] = [];

async function openSource(name: string, config: Omit<HttpSourceConfig, 'baseUrl'> & { baseUrl?: string }) {
  const ctx = testContext({ baseDir: '/', name });
  const source = await httpSource.open({ baseUrl: `${upstream.origin}/api/v1`, ...config }, ctx);
  assert.ok(source, JSON.stringify(ctx.errors));
  opened.push(source);
  sources[name] = source.capabilities;
}

before(async () => {
  upstream = await startUpstream((url) => routes.find(([prefix]) => url.startsWith(prefix))?.[1] ?? echo);
  await openSource('api', { headers: { Accept: 'application/json', 'X-Source': 'src' } });
  await openSource('bearer', { auth: { bearer: TOKEN } });
  await openSource('basic', { auth: { basic: { username: 'ann', password: PASSWORD } } });
  await openSource('keyHeader', { auth: { apiKey: { header: 'X-Api-Key', value: API_KEY } } });
  await openSource('keyQuery', { auth: { apiKey: { query: 'api_key', value: API_KEY } } });
  await openSource('small', { maxResponseBytes: 1000 });
  await openSource('one', { maxConcurrent: 1 });
});
after(async () => {
  await Promise.all(opened.map((s) => s.dispose()));
  await upstream.close();
});

type Config = Omit<HttpToolConfig, 'kind' | 'source'> & Partial<ToolCommon> & { source?: string };

function compile(config: Config) {
  const ctx = testContext({ baseDir: '/', name: 'tool', sources });
  return { ctx, tool: httpTool.compile({ kind: 'http', source: 'api', ...config }, ctx) };
}

async function call(config: Config, args: Record<string, unknown> = {}, signal?: AbortSignal) {
  const { ctx, tool } = compile(config);
  assert.ok(tool, JSON.stringify(ctx.errors));
  return tool.run(args, callContext(signal));
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;
/** The echo: what the upstream received. */
const received = (r: ToolResult) => {
  assert.equal(r.isError, undefined, text(r));
  return r.structuredContent as {
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string;
  };
};

describe('requests', () => {
  test('GET: path under the base URL, unused arguments as query, arrays repeated, absent left out', async () => {
    const r = received(
      await call(
        {
          path: '/items/{id}',
          input: {
            id: { type: 'integer' },
            tag: { type: 'array', items: { type: 'string' } },
            q: { type: 'string', required: false },
          },
        },
        { id: 5, tag: ['a', 'b c'] },
      ),
    );
    assert.equal(r.method, 'GET');
    assert.equal(r.url, '/api/v1/items/5?tag=a&tag=b%20c');
    assert.equal(r.body, '');
    assert.equal(r.headers.accept, 'application/json');
  });

  test('declared query: typed values, templates, literals; absent entries removed', async () => {
    const config: Config = {
      path: '/search',
      query: { limit: '{{limit}}', q: 'repo:{{repo}} is:open', fixed: 'yes', state: '{{state}}', n: 2 },
      input: {
        limit: { type: 'integer' },
        repo: { type: 'string' },
        state: { type: 'string', required: false },
      },
    };
    assert.equal(
      received(await call(config, { limit: 10, repo: 'x/y' })).url,
      '/api/v1/search?limit=10&q=repo%3Ax%2Fy%20is%3Aopen&fixed=yes&n=2',
    );
    assert.equal(
      received(await call(config, { limit: 1, repo: 'r', state: 'closed' })).url,
      '/api/v1/search?limit=1&q=repo%3Ar%20is%3Aopen&fixed=yes&state=closed&n=2',
    );
  });

  test('POST without body: unused arguments become a JSON object body', async () => {
    const r = received(
      await call(
        {
          method: 'POST',
          path: '/repos/{repo}/issues',
          input: {
            repo: { type: 'string' },
            title: { type: 'string' },
            labels: { type: 'array' },
            n: { type: 'number' },
            note: { type: 'string', required: false },
          },
        },
        { repo: 'r', title: 'Bug', labels: ['x', 1], n: 3.5 },
      ),
    );
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/api/v1/repos/r/issues');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(r.body), { title: 'Bug', labels: ['x', 1], n: 3.5 });
  });

  test('JSON body tree: typed substitution, templates, absent keys removed', async () => {
    const r = received(
      await call(
        {
          method: 'PUT',
          path: '/things',
          body: {
            title: '{{title}}',
            meta: { count: '{{count}}', note: 'by {{user}}', flag: false },
            tags: ['{{tag}}', 'fixed'],
            optional: '{{maybe}}',
          },
          input: {
            title: { type: 'string' },
            count: { type: 'integer' },
            user: { type: 'string' },
            tag: { type: 'string', required: false },
            maybe: { type: 'object', required: false },
          },
        },
        { title: 'T', count: 0, user: 'ann' },
      ),
    );
    assert.deepEqual(JSON.parse(r.body), {
      title: 'T',
      meta: { count: 0, note: 'by ann', flag: false },
      tags: ['fixed'],
    });
  });

  test('form and text bodies', async () => {
    const form = received(
      await call(
        {
          method: 'POST',
          path: '/form',
          bodyType: 'form',
          body: { a: '{{a}}', b: 'x {{b}}', tag: '{{tags}}' },
          input: { a: { type: 'integer' }, b: { type: 'string' }, tags: { type: 'array' } },
        },
        { a: 1, b: 'y&z=1', tags: ['p', 'q'] },
      ),
    );
    assert.equal(form.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(form.body, 'a=1&b=x+y%26z%3D1&tag=p&tag=q');
    assert.deepEqual(
      [...new URLSearchParams(form.body)],
      [
        ['a', '1'],
        ['b', 'x y&z=1'],
        ['tag', 'p'],
        ['tag', 'q'],
      ],
    );

    const plain = received(
      await call(
        {
          method: 'PATCH',
          path: '/note',
          bodyType: 'text',
          body: 'Dear {{name}},\n{"not": "json"}',
          input: { name: { type: 'string' } },
        },
        { name: 'Ann' },
      ),
    );
    assert.equal(plain.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(plain.body, 'Dear Ann,\n{"not": "json"}');
  });

  test('headers: templates, source defaults, tool overrides, absent ones left out', async () => {
    const r = received(
      await call(
        {
          path: '/h',
          query: {},
          headers: { 'X-Trace': 'trace-{{id}}', 'X-Source': 'tool', 'X-Opt': '{{opt}}', 'X-Num': 7 },
          input: { id: { type: 'integer' }, opt: { type: 'string', required: false } },
        },
        { id: 12 },
      ),
    );
    assert.equal(r.headers['x-trace'], 'trace-12');
    assert.equal(r.headers['x-source'], 'tool');
    assert.equal(r.headers['x-num'], '7');
    assert.equal(r.headers['x-opt'], undefined);
    assert.equal(r.url, '/api/v1/h');
  });

  test('a source with maxConcurrent: 1 never has two requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const waiting: (() => void)[] = [];
    const held = await startUpstream(() => (seen, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      let answered = false;
      const release = () => {
        if (answered) return;
        answered = true;
        waiting.splice(waiting.indexOf(release), 1);
        inFlight--;
        echo(seen, res);
      };
      waiting.push(release);
      // Without a limit all three arrive together and are released at once; with it, one at a time.
      if (waiting.length === 3) for (const r of [...waiting]) r();
      else setTimeout(release, 150);
    });
    try {
      for (const [name, maxConcurrent, expected] of [
        ['limited', 1, 1],
        ['unlimited', undefined, 3],
      ] as const) {
        most = 0;
        await openSource(name, { baseUrl: held.origin, ...(maxConcurrent && { maxConcurrent }) });
        const results = await Promise.all([1, 2, 3].map(() => call({ source: name, path: '/x' })));
        assert.ok(results.every((r) => !r.isError));
        assert.equal(most, expected, name);
      }
    } finally {
      await held.close();
    }
  });
});

describe('auth', () => {
  const cases: [source: string, check: (r: ReturnType<typeof received>) => void, secrets: string[]][] = [
    ['bearer', (r) => assert.equal(r.headers.authorization, `Bearer ${TOKEN}`), [TOKEN]],
    [
      'basic',
      (r) =>
        assert.equal(r.headers.authorization, `Basic ${Buffer.from(`ann:${PASSWORD}`).toString('base64')}`),
      [PASSWORD, Buffer.from(`ann:${PASSWORD}`).toString('base64')],
    ],
    ['keyHeader', (r) => assert.equal(r.headers['x-api-key'], API_KEY), [API_KEY]],
    [
      'keyQuery',
      (r) => assert.equal(new URL(r.url, 'http://x').searchParams.get('api_key'), API_KEY),
      [API_KEY, encodeURIComponent(API_KEY)],
    ],
  ];
  for (const [source, check, secrets] of cases) {
    test(`${source}: the upstream gets the credential; the result never shows it`, async () => {
      const result = await call({ source, path: '/whoami', input: { q: { type: 'string' } } }, { q: 'v' });
      const seen = upstream.seen.at(-1)!;
      check({ ...seen, headers: seen.headers as Record<string, string> });
      assert.equal(new URL(seen.url, 'http://x').searchParams.get('q'), 'v');
      const shown = JSON.stringify(result);
      for (const secret of secrets) assert.ok(!shown.includes(secret), `${secret} leaked: ${shown}`);
      assert.ok(shown.includes('***'));
    });
  }

  test('a credential anywhere in a JSON answer, keys and nested arrays included, is redacted', async () => {
    const result = await call({ source: 'bearer', path: '/leaky' });
    const structured = result.structuredContent as Record<string, unknown>;
    assert.deepEqual(Object.keys(structured), ['plain', '***', '__proto__']);
    assert.deepEqual(structured.plain, { a: 1 });
    assert.deepEqual(structured['***'], { deep: [[1, 'x ***'], ['y']] });
    assert.equal(Object.getPrototypeOf(structured), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(structured, '__proto__')?.value, { p: '***' });
    assert.ok(!JSON.stringify(result).includes(TOKEN), JSON.stringify(result));
  });

  test('an error result redacts a credential the upstream echoes', async () => {
    const result = await call({ source: 'bearer', path: '/missing' });
    assert.equal(result.isError, true);
    assert.ok(!text(result).includes(TOKEN), text(result));
    assert.match(text(result), /"token_seen":"Bearer \*\*\*"/);
  });
});

describe('responses', () => {
  test('JSON: structuredContent plus pretty text; non-objects wrapped as {result}', async () => {
    const r = await call({ path: '/list' });
    assert.deepEqual(r.structuredContent, { result: [{ id: 1 }, { id: 2 }] });
    assert.equal(text(r), JSON.stringify([{ id: 1 }, { id: 2 }], null, 2));
  });

  test('output.pick shapes the JSON, output.template renders the text', async () => {
    const r = await call(
      {
        path: '/issue/{n}',
        input: { n: { type: 'integer' } },
        output: {
          pick: '{method, path: url, agent: headers.accept}',
          template: '{{method}} {{path}} ({{agent}})',
        },
      },
      { n: 4 },
    );
    assert.deepEqual(r.structuredContent, {
      method: 'GET',
      path: '/api/v1/issue/4',
      agent: 'application/json',
    });
    assert.equal(text(r), 'GET /api/v1/issue/4 (application/json)');
    const list = await call({
      path: '/list',
      output: { pick: '[*].id', template: '{{#each result}}#{{this}} {{/each}}' },
    });
    assert.deepEqual(list.structuredContent, { result: [1, 2] });
    assert.equal(text(list), '#1 #2 ');
  });

  test('text, image, audio, other binary, and no content', async () => {
    assert.deepEqual(await call({ path: '/text' }), { content: [{ type: 'text', text: 'plain words\n' }] });
    assert.deepEqual(await call({ path: '/image' }), {
      content: [
        {
          type: 'image',
          mimeType: 'image/png',
          data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString('base64'),
        },
      ],
    });
    assert.deepEqual(await call({ path: '/audio' }), {
      content: [
        { type: 'audio', mimeType: 'audio/wav', data: Buffer.from('RIFF\0\0WAVE').toString('base64') },
      ],
    });
    assert.deepEqual(await call({ path: '/binary', query: { page: 2 } }), {
      content: [
        {
          type: 'resource',
          resource: {
            uri: `${upstream.origin}/api/v1/binary`,
            mimeType: 'application/octet-stream',
            blob: Buffer.from([0, 255, 1, 254]).toString('base64'),
          },
        },
      ],
    });
    assert.deepEqual(await call({ method: 'DELETE', path: '/empty' }), {
      content: [{ type: 'text', text: 'DELETE /api/v1/empty returned 204 No Content with no content.' }],
    });
  });

  test('non-2xx: an error result with method, path, status and a body excerpt', async () => {
    const r = await call({ path: '/missing/{n}', input: { n: { type: 'integer' } } }, { n: 9 });
    assert.equal(r.isError, true);
    assert.equal(
      text(r),
      `GET /api/v1/missing/9 returned 404 Not Found: {"message":"Not Found","token_seen":"Bearer ${TOKEN}"}\nIt does not exist, or the credentials cannot see it.`,
    );
  });
});

describe('guards', () => {
  before(() => {
    retryCounts = new Map();
  });

  test('retries idempotent requests after Retry-After (seconds or a date), counting attempts', async () => {
    const r = await call({ path: '/flaky-zero' });
    assert.equal(r.isError, undefined, text(r));
    assert.equal(upstream.hits('/api/v1/flaky-zero').length, 3);
    const dated = await call({ method: 'PUT', path: '/flaky-date', body: { a: 1 } });
    assert.equal(dated.isError, undefined, text(dated));
    assert.equal(upstream.hits('/api/v1/flaky-date').length, 2);
    const backoff = await call({ method: 'DELETE', path: '/flaky-plain' });
    assert.equal(backoff.isError, undefined, text(backoff));
    assert.equal(upstream.hits('/api/v1/flaky-plain').length, 2);
  });

  test('gives up after `retries`, and says how often it tried', async () => {
    const r = await call({ path: '/always-busy', retries: 1 });
    assert.equal(r.isError, true);
    assert.equal(upstream.hits('/api/v1/always-busy').length, 2);
    assert.match(
      text(r),
      /^GET \/api\/v1\/always-busy returned 503 Service Unavailable: \{"message":"busy"\}/,
    );
    assert.match(text(r), /Tried 2 times\./);
  });

  test('a Retry-After beyond the cap is not waited for; the result passes it on', async () => {
    const r = await call({ path: '/flaky-long' });
    assert.equal(r.isError, true);
    assert.equal(upstream.hits('/api/v1/flaky-long').length, 1);
    assert.match(text(r), /Retry-After: 3600/);
  });

  test('timeoutMs bounds the whole call: a Retry-After beyond the time left is not waited for, and the result says so', async () => {
    const started = Date.now();
    const r = await call({ path: '/flaky-three', retries: 2, timeoutMs: 2000 });
    const tookMs = Date.now() - started;
    assert.equal(r.isError, true);
    assert.equal(upstream.hits('/api/v1/flaky-three').length, 1);
    assert.match(
      text(r),
      /Not retried: a wait of 3000 ms \(Retry-After\) does not fit in the \d+ ms left of this call's 2000 ms timeoutMs\./,
    );
    assert.ok(tookMs < 2000, `the call took ${tookMs} ms, past its 2000 ms timeoutMs`);
  });

  test('timeoutMs bounds the whole call: retries stop when the next wait does not fit', async () => {
    const started = Date.now();
    const r = await call({ path: '/flaky-one', retries: 3, timeoutMs: 1500 });
    const tookMs = Date.now() - started;
    assert.equal(r.isError, true);
    // One wait of 1 s fits in 1.5 s; a second one would not.
    assert.equal(upstream.hits('/api/v1/flaky-one').length, 2);
    assert.match(text(r), /Tried 2 times\.\nNot retried: a wait of 1000 ms/);
    assert.ok(tookMs < 1500 + 500, `the call took ${tookMs} ms, past its 1500 ms timeoutMs`);
  });

  test('POST is never retried', async () => {
    const before = upstream.hits('/api/v1/always-busy').length;
    const r = await call({ method: 'POST', path: '/always-busy', body: { x: 1 } });
    assert.equal(r.isError, true);
    assert.equal(upstream.hits('/api/v1/always-busy').length, before + 1);
  });

  test('a connection reset is retried for GET', async () => {
    const r = await call({ path: '/reset-once' });
    assert.equal(r.isError, undefined, text(r));
    assert.equal(upstream.hits('/api/v1/reset-once').length, 2);
  });

  test('the size cap: a declared length over it, and a stream that grows past it', async () => {
    for (const path of ['/big', '/big-chunked']) {
      const r = await call({ source: 'small', path });
      assert.equal(r.isError, true, path);
      assert.match(
        text(r),
        /the response is .*more than the 1000-byte cap \(maxResponseBytes on the source\)/,
      );
      assert.ok(!text(r).includes('xxxx') && !text(r).includes('yyyy'));
    }
    assert.equal((await call({ path: '/big' })).isError, undefined);
  });

  test('the timeout stops the request and closes the connection', async () => {
    const r = await call({ path: '/hang/timeout', timeoutMs: 200 });
    assert.equal(r.isError, true);
    assert.equal(
      text(r),
      'GET /api/v1/hang/timeout failed: no complete answer within 200 ms; try again later or raise timeoutMs.',
    );
    await upstream.hits('/api/v1/hang/timeout')[0]!.aborted;
  });

  test('cancellation aborts the request: the upstream sees the connection close', async () => {
    const controller = new AbortController();
    const pending = call({ path: '/hang/cancel' }, {}, controller.signal);
    while (upstream.hits('/api/v1/hang/cancel').length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const r = await pending;
    assert.equal(r.isError, true);
    assert.equal(text(r), 'GET /api/v1/hang/cancel failed: the request was cancelled.');
    await upstream.hits('/api/v1/hang/cancel')[0]!.aborted;
  });

  test('connections are kept alive between calls and closed by dispose', async () => {
    const own = await startUpstream();
    try {
      const ctx = testContext({ baseDir: '/', name: 'pooled' });
      const source = await httpSource.open({ baseUrl: own.origin }, ctx);
      assert.ok(source);
      sources.pooled = source.capabilities;
      for (let i = 0; i < 3; i++)
        assert.equal((await call({ source: 'pooled', path: '/k' })).isError, undefined);
      assert.equal(own.seen.length, 3);
      // Still open after the calls ended: kept alive for the next one.
      assert.ok(own.openConnections() >= 1);
      await source.dispose();
      while (own.openConnections() > 0) await new Promise((r) => setTimeout(r, 10));
    } finally {
      await own.close();
    }
  });

  test("an error names the full path the upstream saw, base path included, never the query's secret", async () => {
    const own = await startUpstream((url) => (url.startsWith('/api/v2/items/') ? notFound : echo));
    try {
      await openSource('v2', {
        baseUrl: `${own.origin}/api/v2/`,
        auth: { apiKey: { query: 'key', value: API_KEY } },
      });
      const r = await call(
        { source: 'v2', path: '/items/{id}', input: { id: { type: 'integer' }, token: { type: 'string' } } },
        { id: 42, token: 'sekrit-query-value' },
      );
      assert.equal(r.isError, true);
      assert.equal(
        text(r),
        'GET /api/v2/items/42 returned 404 Not Found: {"message":"no such item"}\nIt does not exist, or the credentials cannot see it.',
      );
      assert.doesNotMatch(text(r), /sekrit|key=|with\+special/);
    } finally {
      await own.close();
    }
  });

  test('a refused connection is an error result', async () => {
    const closed = await startUpstream();
    const origin = closed.origin;
    await closed.close();
    await openSource('down', { baseUrl: origin });
    const r = await call({ source: 'down', path: '/x' });
    assert.equal(r.isError, true);
    assert.equal(text(r), `GET /x failed: cannot connect to ${origin}: the connection was refused.`);
  });
});

describe('compile', () => {
  test('implied annotations follow the method; loopback is not the open world', async () => {
    const hints = (method: HttpToolConfig['method'], source = 'api') =>
      compile({ method, path: '/x', source }).tool?.annotations;
    assert.deepEqual(hints('GET'), { readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(hints('HEAD'), { readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(hints('DELETE'), { destructiveHint: true, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(hints('PUT'), { idempotentHint: true, openWorldHint: false });
    assert.deepEqual(hints('POST'), { openWorldHint: false });
    await openSource('remote', { baseUrl: 'https://api.example.com' });
    assert.deepEqual(hints('POST', 'remote'), { openWorldHint: true });
  });

  test('manifest mistakes are reported at their paths, all at once', () => {
    const { ctx, tool } = compile({
      method: 'GET',
      path: '/repos/{owner}/{repo}',
      query: { x: '{{nope}}' },
      headers: { Host: 'evil.example', 'X-Ok': '{{owner}}' },
      body: { a: 1 },
      output: { pick: 'items[*' },
      input: { owner: { type: 'string' }, repos: { type: 'string' } },
    });
    assert.equal(tool, undefined);
    assert.deepEqual(
      ctx.errors.map((e) => [e.at.join('.'), e.problem.code]),
      [
        ['path', 'HTTP_PATH_PARAM_UNDECLARED'],
        ['query.x', 'TEMPLATE_UNKNOWN_VARIABLE'],
        ['headers.Host', 'MANIFEST_INVALID_VALUE'],
        ['body', 'MANIFEST_INVALID_VALUE'],
        ['output.pick', 'OUTPUT_PICK_INVALID'],
      ],
    );
    assert.equal(
      ctx.errors[0]!.problem.message,
      'the path uses {repo} but input has no property "repo" (did you mean "repos"?)',
    );
    assert.match(ctx.errors[4]!.problem.message, /expected "\]" but found the end at column 8/);
  });

  test('the source refuses base URLs that are not a plain http(s) root', async () => {
    for (const [baseUrl, message] of [
      ['ftp://example.com', /http:\/\/ or https:\/\//],
      ['https://user:pw@example.com', /may not contain credentials/],
      ['https://example.com/?x=1', /query or fragment/],
      ['not a url', /is not a URL/],
    ] as const) {
      const ctx = testContext({ baseDir: '/', name: 'src' });
      assert.equal(await httpSource.open({ baseUrl }, ctx), undefined);
      assert.equal(ctx.errors[0]?.at[0], 'baseUrl');
      assert.match(ctx.errors[0]!.problem.message, message);
    }
    const ctx = testContext({ baseDir: '/', name: 'src' });
    assert.equal(await httpSource.open({ baseUrl: 'http://x', headers: { Host: 'y' } }, ctx), undefined);
    assert.deepEqual(ctx.errors[0]?.at, ['headers', 'Host']);
  });
});
