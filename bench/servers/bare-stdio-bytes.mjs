/**
 * The stdio ceiling of a start that answers real bytes: newline-delimited JSON-RPC on stdin/stdout,
 * answering each request with the result text captured from mcp-run for its method (a JSON file of
 * method → result, the first argument), after the request's id: the same bytes mcp-run sends. A
 * method it has no answer for gets the first canned one. No MCP at all: node's start-up, the pipes,
 * reading one small file and writing the answers.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const answers = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const fallback = Object.values(answers)[0];

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const result = answers[msg.method] ?? fallback;
  process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}\n`);
});
