/**
 * Contender: the official v1 SDK (`@modelcontextprotocol/sdk` 1.32.2) over Streamable HTTP in
 * stateless mode, as its docs show it (simpleStatelessStreamableHttp): a new `McpServer` and a new
 * `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })` per POST, both closed when the
 * response closes. Two deviations, both in the SDK's favour: plain node:http instead of Express, and
 * `enableJsonResponse: true` (one JSON body instead of an SSE stream per answer). v1 knows only the
 * 2025 era (protocol versions up to 2025-11-25).
 *
 * Usage: node bench/servers/sdk-v1-http.mjs [--cheap] [--sql file] [--many n]
 */
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';
import { announce, defineTools, registerAll } from './sdk-tools.mjs';

const tools = await defineTools(process.argv.slice(2), z, (shape) => shape);

const server = createServer(async (req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
    );
    return;
  }
  const mcp = registerAll(new McpServer({ name: 'bench-sdk-v1', version: '1.0.0' }), tools);
  try {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      transport.close();
      mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  } catch (err) {
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(err) }, id: null }));
    }
  }
});
server.listen(0, '127.0.0.1', () => announce(server));
