/**
 * A failed reload reaches the author's client with its code frames, in the data of the log
 * notification (notifications/message, level error): on stdio and on a loopback HTTP server. A
 * server bound beyond loopback sends the summary only (the manifest's paths and lines are the
 * operator's data), unless the operator passes --reload-errors-detail. Real processes, real files,
 * the official SDK client.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { until } from '../helpers/databases.js';
import { tempFiles } from '../helpers/demo.js';
import { connectWatchedStdio, ServerLog } from '../helpers/reload-harness.js';
import { spawnHttpCli } from '../transports/http-harness.js';

const manifest = (kind: string) => `sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
  one: { kind: ${kind}, source: mem, description: The first, sql: SELECT 1 AS n }
`;
const SUMMARY = 'reload of mcp.yaml failed with 1 error; still serving the previous version';

/** A client that keeps the data of every log notification it receives. */
function loggingClient(): { client: Client; data: unknown[] } {
  const client = new Client({ name: 'reload-detail', version: '1' });
  const data: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    assert.equal(n.params.level, 'error');
    data.push(n.params.data);
  });
  return { client, data };
}

/** Breaks the manifest (kind: sqll at line 4) and resolves with the data of the notification it causes. */
async function breakAndListen(log: ServerLog, file: string, data: unknown[]): Promise<unknown> {
  await log.edit(file, manifest('sqll'));
  await until(async () => data.length > 0);
  assert.equal(data.length, 1);
  return data[0];
}

/** The summary, then the error as validate prints it: code, file:line:col, path, message, frame. */
function assertFramed(data: unknown, file: string): void {
  assert.equal(typeof data, 'string');
  const text = data as string;
  assert.ok(text.startsWith(`${SUMMARY}\n\n`), text);
  assert.ok(text.includes(`error[MANIFEST_UNKNOWN_KIND] ${file}:4:16 tools.one.kind\n`), text);
  assert.match(text, /unknown tool kind "sqll"; known kinds: .*\(did you mean "sql"\?\)/);
  assert.match(text, /^ {4}> 4 \| {3}one: \{ kind: sqll, source: mem/m);
  assert.match(text, /^ {8}\| {16}\^$/m);
}

describe('a failed reload reaches the client', () => {
  test('on stdio: the log notification carries the code frame', async () => {
    const files = tempFiles({ 'mcp.yaml': manifest('sql') });
    const file = join(files.dir, 'mcp.yaml');
    const { client, data } = loggingClient();
    try {
      const log = await connectWatchedStdio(client, file);
      assertFramed(await breakAndListen(log, file, data), file);
    } finally {
      await client.close();
      files.cleanup();
    }
  });

  const overHttp = async (args: string[], check: (data: unknown, file: string) => void) => {
    const files = tempFiles({ 'mcp.yaml': manifest('sql') });
    const file = join(files.dir, 'mcp.yaml');
    const token = 'reload-detail-token-5d1e';
    const server = await spawnHttpCli([file, '--log-level', 'debug', ...args], {
      env: { ...process.env, RELOAD_DETAIL_TOKENS: token },
    });
    const { client, data } = loggingClient();
    try {
      const log = new ServerLog(server.child.stderr);
      log.text = server.stderr();
      await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
      const headers = { authorization: `Bearer ${token}` };
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
      );
      await log.waitFor(() => log.text.includes('opened its GET stream'), 'the session GET stream');
      check(await breakAndListen(log, file, data), file);
    } finally {
      await client.close();
      assert.equal(await server.stop(), 0);
      files.cleanup();
    }
  };

  test('over HTTP on loopback (the author’s dev server): the code frame too', async () => {
    await overHttp([], assertFramed);
  });

  test('over HTTP beyond loopback: the summary only, no path or line of the manifest', async () => {
    await overHttp(['--host', '0.0.0.0', '--auth-token-env', 'RELOAD_DETAIL_TOKENS'], (data, file) => {
      assert.equal(data, SUMMARY);
      assert.ok(!String(data).includes(file));
    });
  });

  test('over HTTP beyond loopback with --reload-errors-detail: the code frame, as the operator chose', async () => {
    await overHttp(
      ['--host', '0.0.0.0', '--auth-token-env', 'RELOAD_DETAIL_TOKENS', '--reload-errors-detail'],
      assertFramed,
    );
  });
});
