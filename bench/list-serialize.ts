/**
 * `tsx bench/list-serialize.ts`: the cost of turning one `tools/list` walk of 10,000 tools (default
 * page size, both eras) into wire text, before (JSON.stringify of every response, as the transports
 * did) and after (serializeMessage in protocol/results.ts, which splices the page's cached JSON text), interleaved in
 * one run. Reported as medians and their ratio.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadCatalog } from '../src/catalog/load.js';
import { CatalogRef } from '../src/catalog/types.js';
import { builtinKinds } from '../src/kinds/builtin.js';
import { StderrLogger } from '../src/log.js';
import { serializeMessage } from '../src/protocol/results.js';
import { createProtocol } from '../src/protocol/server.js';
import { manyToolsText, writeManifest } from './lib/fixtures.js';

const N = 10_000;
const ROUNDS = 15;
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const dir = mkdtempSync(join(tmpdir(), 'mcp-run-list-serialize-'));
try {
  const log = new StderrLogger('error');
  const { catalog } = await loadCatalog(
    writeManifest(dir, 'tools.yaml', manyToolsText(N)),
    builtinKinds(),
    log,
  );
  const protocol = createProtocol(new CatalogRef(catalog), { log, listChanged: false });
  const sent: object[] = [];
  const connection = protocol.connect((m) => sent.push(m));
  let id = 0;
  const walk = async (era: 'modern' | 'legacy'): Promise<object[]> => {
    const responses: object[] = [];
    let cursor: string | undefined;
    do {
      const params: Record<string, unknown> = cursor === undefined ? {} : { cursor };
      if (era === 'modern') params._meta = META;
      await connection.receive(JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/list', params }));
      const response = sent.at(-1) as { result: { nextCursor?: string } };
      responses.push(response);
      cursor = response.result.nextCursor;
    } while (cursor !== undefined);
    return responses;
  };
  await connection.receive(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {} },
    }),
  );
  const responses = [...(await walk('modern')), ...(await walk('legacy'))];
  const time = (fn: (m: object) => string): number => {
    const t0 = performance.now();
    let bytes = 0;
    // Buffer.byteLength flattens the spliced string, as sendJson (Content-Length) and a write do.
    for (const m of responses) bytes += Buffer.byteLength(fn(m));
    if (bytes === 0) throw new Error('nothing serialized');
    return performance.now() - t0;
  };
  for (const m of responses) if (serializeMessage(m) !== JSON.stringify(m)) throw new Error('bytes differ');
  const before: number[] = [];
  const after: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    before.push(time((m) => JSON.stringify(m)));
    after.push(time((m) => serializeMessage(m)));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const b = median(before);
  const a = median(after);
  console.log(
    `${responses.length} pages of ${N} tools (both eras): JSON.stringify ${b.toFixed(2)} ms → cached ${a.toFixed(2)} ms per walk (${(b / a).toFixed(1)}× faster)`,
  );
  await catalog.dispose();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
