/**
 * Views reload like every resource: editing a view's own HTML file, or a built-in view's settings in
 * the manifest, sends notifications/resources/updated for its ui:// URI to the subscribers, and the
 * next read has the new page. The built CLI on stdio with hot reload, the official v1 client (2025).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempFiles } from '../helpers/demo.js';
import { connectWatchedStdio, type ServerLog } from '../helpers/reload-harness.js';

type Json = Record<string, any>;

const manifest = (title: string) => `server: { name: apps-reload, version: 1.0.0 }
sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
  custom:
    kind: sql
    source: mem
    sql: SELECT 1 AS one
    ui: { html: ./view.html }
  listed:
    kind: sql
    source: mem
    sql: SELECT 1 AS one
    ui: { view: table, title: ${title} }
`;

describe('views reload and tell their subscribers', () => {
  const files = tempFiles({ 'mcp.yaml': manifest('First'), 'view.html': '<p>version one</p>' });
  const client = new Client({ name: 'apps-reload', version: '1.0.0' });
  const updated: string[] = [];
  let log: ServerLog;

  before(async () => {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    log = await connectWatchedStdio(client, join(files.dir, 'mcp.yaml'));
    await client.subscribeResource({ uri: 'ui://custom/view.html' });
    await client.subscribeResource({ uri: 'ui://listed/view.html' });
  });
  after(async () => {
    await client.close();
    files.cleanup();
  });

  const read = async (uri: string) =>
    ((await client.readResource({ uri })) as Json).contents[0].text as string;

  test("an edit of the view's HTML file", async () => {
    assert.match(await read('ui://custom/view.html'), /version one/);
    await log.edit(join(files.dir, 'view.html'), '<p>version two</p>');
    await client.ping();
    assert.deepEqual(updated.splice(0), ['ui://custom/view.html']);
    assert.match(await read('ui://custom/view.html'), /version two/);
  });

  test("an edit of a built-in view's settings", async () => {
    assert.match(await read('ui://listed/view.html'), /"title":"First"/);
    await log.edit(join(files.dir, 'mcp.yaml'), manifest('Second'));
    await client.ping();
    assert.deepEqual(updated.splice(0), ['ui://listed/view.html']);
    assert.match(await read('ui://listed/view.html'), /"title":"Second"/);
  });
});
