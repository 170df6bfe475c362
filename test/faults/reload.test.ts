/**
 * A hot reload while a dependency is down: mcp-run over HTTP with a PostgreSQL source reached
 * through the fault relay (the shared server itself is never touched), the official v1 client
 * listening. The database goes away (connections cut, new ones refused), the manifest gains a tool:
 * /readyz names the source that is down, the old catalog keeps serving (its calls fail with a clear
 * error), and once the database is back the edit is not lost: the reload is tried again, the new
 * catalog swaps in, the client hears tools/list_changed once, and every call succeeds.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { PG_URL } from '../helpers/databases.js';
import { tempFiles } from '../helpers/demo.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { outcome, recovery, sleep } from './harness.js';
import { type FaultRelay, startRelay } from './relay.js';

const skip = PG_URL ? undefined : 'MCP_RUN_TEST_POSTGRES_URL is not set';

const manifest = (url: string, tools: string[]) =>
  [
    'sources:',
    `  pg: { kind: postgres, url: "${url}", timeoutMs: 2000 }`,
    'tools:',
    ...tools.map(
      (name) => `  ${name}: { kind: sql, source: pg, description: One row., sql: "SELECT 1 AS n" }`,
    ),
    '',
  ].join('\n');

let relay: FaultRelay;
let files: { dir: string; cleanup: () => void };
let served: ServedCli;
let client: Client;
let url: string;
const changed: number[] = [];

before(async () => {
  if (skip) return;
  const target = new URL(PG_URL as string);
  relay = await startRelay({ port: Number(target.port || 5432) });
  target.host = `127.0.0.1:${relay.port}`;
  url = target.toString();
  files = tempFiles({ 'mcp.yaml': manifest(url, ['one']) });
  served = await spawnHttpCli([join(files.dir, 'mcp.yaml'), '--log-level', 'info']);
  client = new Client({ name: 'faults-reload', version: '1' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed.push(Date.now()));
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
});

after(async () => {
  await client?.close();
  await served?.stop();
  await relay?.close();
  files?.cleanup();
});

const readyz = async () => {
  const res = await fetch(new URL('/readyz', served.url));
  return {
    status: res.status,
    body: (await res.json()) as { reason?: string; sources?: Record<string, string> },
  };
};
const call = (name: string) => outcome(() => client.callTool({ name, arguments: {} }) as never, 6000);
const toolNames = async () => (await client.listTools()).tools.map((t) => t.name).sort();

describe('a hot reload while the database is down', { skip }, () => {
  it('readiness names the source, the edit waits, then swaps in once the database is back', async () => {
    assert.equal((await readyz()).status, 200);
    assert.equal((await call('one')).kind, 'ok');

    relay.fault = { kind: 'refuse' };
    relay.cut();
    const down = await readyz();
    assert.equal(down.status, 503, JSON.stringify(down.body));
    assert.match(down.body.reason ?? '', /source pg unreachable/);
    assert.notEqual(down.body.sources?.pg, 'ok');

    writeFileSync(join(files.dir, 'mcp.yaml'), manifest(url, ['one', 'two']));
    const deadline = Date.now() + 10_000;
    while (!served.stderr().includes('trying again in')) {
      assert.ok(Date.now() < deadline, `no retry was announced; stderr:\n${served.stderr()}`);
      await sleep(50);
    }
    // The old catalog still serves; its call fails with a clear error, not silence.
    assert.deepEqual(await toolNames(), ['one']);
    const failed = await call('one');
    assert.equal(failed.kind, 'error', JSON.stringify(failed));
    assert.match(failed.kind === 'error' ? failed.text : '', /reach the database|connect|ECONN|terminat/i);

    relay.fault = { kind: 'none' };
    const liftedAt = Date.now();
    // The reload is retried 1 s, 2 s, 4 s… after: the new catalog is in within a few seconds.
    const swappedMs = await recovery(async () => {
      const names = await toolNames();
      return names.includes('two')
        ? { kind: 'ok', text: '', ms: 0 }
        : { kind: 'error', text: names.join(), ms: 0 };
    }, 8000);
    assert.ok(swappedMs < 8000);
    assert.equal((await call('two')).kind, 'ok');
    assert.equal((await call('one')).kind, 'ok');
    assert.equal((await readyz()).status, 200);
    await sleep(200);
    assert.equal(
      changed.filter((t) => t >= liftedAt).length,
      1,
      'tools/list_changed once, when it swapped in',
    );
  });
});
