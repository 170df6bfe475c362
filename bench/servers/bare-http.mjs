/**
 * The ceiling: a bare node:http JSON-RPC echo. It reads and parses the body and answers a canned
 * result with the request's id. No MCP at all: what node:http itself costs on this machine.
 *
 * Usage: node bench/servers/bare-http.mjs [--result <file>] [--header 'Name: value']…
 *   (none)            the `tools/call` result of `ping`: `{"content":[{"type":"text","text":"pong"}]}`
 *   --result <file>   the file's text, as is, as every answer's `result` (the http scenario hands it
 *                     the exact result bytes mcp-run sent, so both send the same bytes)
 *   --header …        a header of every answer, besides the ones node:http writes itself (the http
 *                     scenario hands it the ones mcp-run added to the answer it captured)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const at = args.indexOf('--result');
const resultText =
  at >= 0
    ? readFileSync(args[at + 1], 'utf8')
    : JSON.stringify({ content: [{ type: 'text', text: 'pong' }] });
const extraHeaders = {};
args.forEach((arg, i) => {
  if (arg !== '--header') return;
  const [name, ...value] = args[i + 1].split(': ');
  extraHeaders[name] = value.join(': ');
});

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    // Spliced, not re-serialized: the result goes out byte for byte as given.
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${resultText}}`;
    const head = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    for (const name in extraHeaders) head[name] = extraHeaders[name];
    res.writeHead(200, head);
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
// Exit cleanly on SIGTERM, so `node --cpu-prof` can write its profile.
process.once('SIGTERM', () => process.exit(0));
