/**
 * Contender: the official v2 server SDK (`@modelcontextprotocol/server` 2.4.0) over HTTP, as its
 * docs serve it: `createMcpHandler(factory)`, one `McpServer` per request from the factory, both
 * eras (2026-07-28 natively, 2025 through its default stateless legacy fallback). The SDK speaks web
 * Request/Response; the official node adapter (`@modelcontextprotocol/node`) is not installed, so a
 * minimal node:http ↔ fetch adapter sits in front. It reads the body once and hands the handler both
 * the bytes and the parsed value (`parsedBody`), the SDK's fast path.
 *
 * Usage: node bench/servers/sdk-v2-http.mjs [--cheap] [--sql file] [--many n]
 */
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { announce, defineTools, registerAll } from './sdk-tools.mjs';

const tools = await defineTools(process.argv.slice(2), z, (shape) => z.object(shape));
const handler = createMcpHandler(() =>
  registerAll(new McpServer({ name: 'bench-sdk-v2', version: '1.0.0' }), tools),
);

const server = createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      ...(body.length > 0 && { body }),
    });
    let parsedBody;
    try {
      parsedBody = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      parsedBody = undefined; // the handler answers the parse error itself
    }
    const response = await handler.fetch(request, parsedBody === undefined ? {} : { parsedBody });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) res.end();
    else if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      for await (const chunk of response.body) res.write(chunk);
      res.end();
    } else res.end(Buffer.from(await response.arrayBuffer()));
  } catch (err) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(String(err));
  }
});
server.listen(0, '127.0.0.1', () => announce(server));
