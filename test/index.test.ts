/** The library entry point serves a manifest the way the CLI does. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { builtinKinds, CatalogRef, createProtocol, loadCatalog, StderrLogger } from '../src/index.js';
import { demoCopy } from './helpers/demo.js';

test('loadCatalog + createProtocol: a tools/call answered through the public API', async () => {
  const copy = demoCopy();
  try {
    const log = new StderrLogger('silent');
    const { catalog } = await loadCatalog(join(copy.dir, 'mcp.yaml'), builtinKinds(), log);
    const sent: Record<string, any>[] = [];
    const connection = createProtocol(new CatalogRef(catalog), { log, listChanged: false }).connect((m) =>
      sent.push(m as Record<string, any>),
    );
    await connection.receive({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'find_orders',
        arguments: { email: 'alan@example.com' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    assert.equal(sent[0]?.result.resultType, 'complete');
    assert.deepEqual(sent[0]?.result.structuredContent.rows, [
      { id: 1004, status: 'returned', placed_at: '2025-08-30', total: 59.9 },
    ]);
    await catalog.dispose();
  } finally {
    copy.cleanup();
  }
});
