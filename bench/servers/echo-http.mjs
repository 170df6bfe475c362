/**
 * The REST upstream of the mcp-proxy scenario's http-tool row: node:http answering
 * `GET /echo?message=…` with `{"echo": "<message>"}` on a keep-alive connection, the HTTP
 * counterpart of server-everything's `echo`.
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const message = new URL(req.url ?? '/', 'http://localhost').searchParams.get('message') ?? '';
    const body = JSON.stringify({ echo: message });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
