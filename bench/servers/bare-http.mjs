/**
 * The ceiling: a bare node:http JSON-RPC echo. It reads and parses the body and answers a canned
 * `tools/call` result with the request's id. No MCP at all: what node:http itself costs on this
 * machine.
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: msg.id,
      result: { content: [{ type: 'text', text: 'pong' }] },
    });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
// Exit cleanly on SIGTERM, so `node --cpu-prof` can write its profile.
process.once('SIGTERM', () => process.exit(0));
