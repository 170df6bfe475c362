/**
 * What the bare servers (bare-sql.mjs, bare-duckdb.mjs) share: a node:http JSON-RPC endpoint that
 * answers every request with the rows `rowsFor(message)` resolves to, as a tools/call result (the
 * rows as JSON text plus structuredContent), and says where it listens on stderr.
 */
import { createServer } from 'node:http';

export function serveRows(rowsFor, structure = (rows) => ({ rows })) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const structured = structure(await rowsFor(msg));
      const result = {
        content: [{ type: 'text', text: JSON.stringify(structured) }],
        structuredContent: structured,
      };
      const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  process.once('SIGTERM', () => process.exit(0));
}
