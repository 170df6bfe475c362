/**
 * The upstream REST API of the proxy scenario: node:http answering every request with one small
 * JSON object, on a keep-alive connection.
 */
import { createServer } from 'node:http';

const body = JSON.stringify({ id: 42, name: 'widget', price: 9.5, tags: ['blue', 'small'] });
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
