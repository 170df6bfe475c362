/**
 * The 2026-07-28 side of mcp-run's upstream client (src/kinds/mcp/modern.ts): the envelope its
 * requests carry, checked against the official 2026-07-28 schema; the HTTP headers that mirror it;
 * how a result's `resultType` is read; and, against the real v2 server library
 * (test/fixtures/mcp-upstream/modern.mjs) over the real HTTP channel, the era each `era:` picks.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compileCatalog } from '../../../src/catalog/compile.js';
import { ManifestError } from '../../../src/errors.js';
import { builtinKinds } from '../../../src/kinds/builtin.js';
import { McpClient } from '../../../src/kinds/mcp/client.js';
import { startHttp } from '../../../src/kinds/mcp/http-channel.js';
import {
  discovered,
  enveloped,
  headerValue,
  MODERN_VERSION,
  modernHeaders,
  paramHeaders,
  readResult,
} from '../../../src/kinds/mcp/modern.js';
import { StderrLogger } from '../../../src/log.js';
import { loadManifest } from '../../../src/manifest/load.js';
import { schemaFor } from '../../protocol/mcp-schemas.js';
import { tempDir } from '../context.js';

const REPO = join(import.meta.dirname, '../../..');
const MODERN = join(REPO, 'test/fixtures/mcp-upstream/modern.mjs');
const schema = schemaFor('2026-07-28');
const quiet = { debug() {}, info() {}, warn() {}, error() {} } as never;

describe('the 2026 envelope and headers', () => {
  test('each request mcp-run sends is valid for the official 2026-07-28 schema', () => {
    const cases: [string, string, Record<string, unknown>, boolean][] = [
      ['DiscoverRequest', 'server/discover', {}, false],
      ['ListToolsRequest', 'tools/list', { cursor: 'next' }, false],
      ['CallToolRequest', 'tools/call', { name: 'echo', arguments: { text: 'x' } }, true],
      [
        'CallToolRequest',
        'tools/call',
        {
          name: 'echo',
          arguments: {},
          inputResponses: { who: { action: 'accept', content: { name: 'A' } } },
          requestState: 's',
        },
        true,
      ],
      ['ReadResourceRequest', 'resources/read', { uri: 'note://hello' }, false],
      ['GetPromptRequest', 'prompts/get', { name: 'greet', arguments: { name: 'x' } }, false],
    ];
    for (const [def, method, params, relays] of cases) {
      const request = { jsonrpc: '2.0', id: 1, method, params: enveloped(params, relays, relays) };
      assert.deepEqual(schema.check(def, request), [], `${method}: ${JSON.stringify(request)}`);
    }
  });

  test('the envelope keeps a progress token and declares what the call relays, nothing otherwise', () => {
    const params = enveloped({ name: 't', _meta: { progressToken: 'mcp-run-3' } }, true, false);
    const meta = params._meta as Record<string, unknown>;
    assert.equal(meta.progressToken, 'mcp-run-3');
    assert.equal(meta['io.modelcontextprotocol/protocolVersion'], MODERN_VERSION);
    assert.deepEqual(meta['io.modelcontextprotocol/clientCapabilities'], { elicitation: {}, sampling: {} });
    // Roots only when the source names them: mcp-run answers those itself.
    const rooted = enveloped({ name: 't' }, true, false, true)._meta as Record<string, unknown>;
    assert.deepEqual(rooted['io.modelcontextprotocol/clientCapabilities'], {
      elicitation: {},
      sampling: {},
      roots: {},
    });
    assert.equal(meta['io.modelcontextprotocol/logLevel'], undefined);
    const bare = enveloped({ uri: 'a://b' }, false, false)._meta as Record<string, unknown>;
    assert.deepEqual(bare['io.modelcontextprotocol/clientCapabilities'], {});
  });

  test('headers: version, method and the name or URI; a value that is not plain ASCII is base64', () => {
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: enveloped({ name: 'echo' }, false, false),
    };
    assert.deepEqual(modernHeaders(call), {
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    });
    const read = {
      jsonrpc: '2.0',
      id: 2,
      method: 'resources/read',
      params: enveloped({ uri: 'note://é' }, false, false),
    };
    assert.equal(modernHeaders(read)['mcp-name'], `=?base64?${Buffer.from('note://é').toString('base64')}?=`);
    assert.equal(headerValue(' lead'), `=?base64?${Buffer.from(' lead').toString('base64')}?=`);
    assert.equal(headerValue('a\nb').startsWith('=?base64?'), true);
    assert.equal(headerValue('=?base64?x?=').startsWith('=?base64?PT9'), true);
    // A 2025 message (no envelope) gets none: the channel's session headers apply.
    assert.deepEqual(modernHeaders({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }), {});
  });
});

describe('Mcp-Param headers (x-mcp-header)', () => {
  test('a marked top-level string, integer or boolean argument becomes its header; others do not', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
        ratio: { type: 'number', 'x-mcp-header': 'Ratio' },
        bad: { type: 'string', 'x-mcp-header': 'Not a token' },
        plain: { type: 'string' },
        absent: { type: 'string', 'x-mcp-header': 'Absent' },
      },
    };
    assert.deepEqual(
      paramHeaders(schema, {
        region: 'née',
        count: 3,
        dry: false,
        ratio: 0.5,
        bad: 'x',
        plain: 'y',
        absent: null,
      }),
      {
        'mcp-param-region': `=?base64?${Buffer.from('née').toString('base64')}?=`,
        'mcp-param-count': '3',
        'mcp-param-dry': 'false',
      },
    );
    assert.deepEqual(paramHeaders(undefined, { region: 'x' }), {});
  });
});

describe('reading a 2026 result', () => {
  test('complete, or missing (an older server), is complete', () => {
    assert.equal(readResult({ resultType: 'complete', content: [] }, 'it').kind, 'complete');
    assert.equal(readResult({ content: [] }, 'it').kind, 'complete');
  });

  test('input_required gives its questions and state', () => {
    const read = readResult(
      {
        resultType: 'input_required',
        inputRequests: { who: { method: 'elicitation/create', params: { message: 'Who?' } } },
        requestState: 'opaque',
      },
      'it',
    );
    assert.deepEqual(read, {
      kind: 'input',
      questions: [{ key: 'who', method: 'elicitation/create', params: { message: 'Who?' } }],
      requestState: 'opaque',
    });
  });

  test('an unknown resultType, a malformed question, too many, or neither questions nor state is invalid', () => {
    const reason = (r: unknown) => {
      const read = readResult(r, 'its answer');
      return read.kind === 'invalid' ? read.reason : `not invalid: ${read.kind}`;
    };
    assert.match(
      reason({ resultType: 'task', taskId: 'x' }),
      /resultType "task", which mcp-run does not know/,
    );
    assert.match(reason({ resultType: 'input_required', inputRequests: { a: 'nope' } }), /not a request/);
    const many = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, { method: 'roots/list' }]));
    assert.match(reason({ resultType: 'input_required', inputRequests: many }), /9 questions/);
    assert.match(reason({ resultType: 'input_required' }), /neither questions nor requestState/);
  });

  test('discover: only an answer naming 2026-07-28 is one', () => {
    assert.deepEqual(
      discovered({
        resultType: 'complete',
        supportedVersions: [MODERN_VERSION],
        capabilities: { tools: {} },
      }),
      {
        capabilities: { tools: {} },
      },
    );
    assert.equal(discovered({ supportedVersions: ['2025-11-25'] }), undefined);
    assert.equal(discovered({ protocolVersion: '2025-11-25' }), undefined);
    assert.equal(discovered(null), undefined);
  });
});

describe("the era each `era:` picks, against the v2 server library's upstreams", () => {
  const children: ChildProcess[] = [];
  const ports: Record<string, number> = {};
  const start = async (legacy: string) => {
    const child = spawn(process.execPath, [MODERN], {
      env: { ...process.env, MODERN_LEGACY: legacy },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let said = '';
    return new Promise<number>((resolve, reject) => {
      child.once('exit', () => reject(new Error(`the fixture exited: ${said}`)));
      child.stdout!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        const m = /listening (\d+)/.exec(said);
        if (m) resolve(Number(m[1]));
      });
    });
  };
  before(async () => {
    ports.modern = await start('reject');
    ports.dual = await start('stateless');
  });
  after(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  const open = async (port: number, era: 'auto' | '2025' | '2026') => {
    const client = new McpClient({ name: 'upstream t', maxResultBytes: 1 << 20, onLog() {} });
    const channel = startHttp(
      {
        name: 'upstream t',
        url: `http://127.0.0.1:${port}/mcp`,
        headers: {},
        tokens: undefined,
        maxMessageBytes: 1 << 20,
        requestTimeoutMs: 10_000,
        log: quiet,
      },
      client.events,
    );
    await client.open(channel, era, 10_000);
    return client;
  };

  test('auto and 2026 speak 2026-07-28 to a modern-only upstream; its lists and calls answer', async () => {
    for (const era of ['auto', '2026'] as const) {
      const client = await open(ports.modern!, era);
      assert.equal(client.era, '2026');
      assert.equal(client.protocolVersion, MODERN_VERSION);
      assert.ok(client.capabilities.tools, JSON.stringify(client.capabilities));
      const listed = (await client.request('tools/list', {}, { timeoutMs: 10_000 })) as {
        tools: { name: string }[];
      };
      assert.ok(listed.tools.some((t) => t.name === 'echo'));
      const called = (await client.request(
        'tools/call',
        { name: 'echo', arguments: { text: 'hi' } },
        { timeoutMs: 10_000 },
      )) as {
        content: { text: string }[];
      };
      assert.equal(called.content[0]!.text, 'echo: hi');
      await client.ping(AbortSignal.timeout(5000));
      await client.close('done');
    }
  });

  test('2025 fails against it, naming the era to set', async () => {
    await assert.rejects(open(ports.modern!, '2025'), /set era: auto or 2026/);
  });

  test('a dual-era upstream: auto speaks 2026-07-28, 2025 initializes', async () => {
    const modern = await open(ports.dual!, 'auto');
    assert.equal(modern.era, '2026');
    await modern.close('done');
    const legacy = await open(ports.dual!, '2025');
    assert.equal(legacy.era, '2025');
    assert.notEqual(legacy.protocolVersion, MODERN_VERSION);
    const called = (await legacy.request(
      'tools/call',
      { name: 'echo', arguments: { text: 'old' } },
      { timeoutMs: 10_000 },
    )) as {
      content: { text: string }[];
    };
    assert.equal(called.content[0]!.text, 'echo: old');
    await legacy.close('done');
  });

  test('a request that relays nothing declares no capability: the upstream refuses to ask, with its JSON-RPC error', async () => {
    const client = await open(ports.modern!, 'auto');
    await assert.rejects(
      client.request('tools/call', { name: 'confirm', arguments: {} }, { timeoutMs: 10_000 }),
      (err: Error & { code?: number }) => {
        assert.equal(err.name, 'UpstreamError', err.message);
        assert.equal(err.code, -32021);
        return true;
      },
    );
    await client.close('done');
  });
});

describe('the era field', () => {
  test('a stdio upstream with era: 2026 is refused at load, naming the field', async () => {
    const file = join(tempDir(), 'mcp.yaml');
    writeFileSync(file, 'sources:\n  up:\n    kind: mcp\n    command: [node, x.mjs]\n    era: "2026"\n');
    const registry = builtinKinds();
    await assert.rejects(
      async () =>
        compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent')),
      (err: unknown) =>
        err instanceof ManifestError &&
        err.diagnostics.some(
          (d) => d.path?.includes('era') === true && /a stdio upstream speaks the 2025 era/.test(d.message),
        ),
    );
  });
});
