/**
 * The stdio ceiling: a bare newline-delimited JSON-RPC echo on stdin/stdout. It parses each line and
 * answers a canned result with the request's id (an `initialize` result for `initialize`). No MCP at
 * all: what node's start-up and stdio pipes cost on this machine.
 */
import { createInterface } from 'node:readline';

const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'bare', version: '1.0.0' },
};
const CALL = { content: [{ type: 'text', text: 'pong' }] };

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const result = msg.method === 'initialize' ? INIT : CALL;
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`);
});
