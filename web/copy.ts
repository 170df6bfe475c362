/** A traced `tools/call` copied as a command that runs as is: `mcp-run call`, or `curl`. */
import type { TraceEntry } from './mcp.js';
import { store } from './store.js';

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function asCallCommand(entry: TraceEntry, manifest: string | undefined): string {
  const p = entry.message.params ?? {};
  const parts = ['mcp-run', 'call', shellQuote(p.name)];
  if (manifest) parts.push(shellQuote(manifest));
  parts.push('--json', shellQuote(JSON.stringify(p.arguments ?? {})));
  return parts.join(' ');
}

export function asCurl(entry: TraceEntry): string {
  const url = new URL(store.dev?.mcpPath ?? '/mcp', location.href).href;
  const headers = Object.entries(entry.headers ?? {}).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`);
  return [
    'curl',
    '-sS',
    '-N',
    '-X',
    'POST',
    shellQuote(url),
    ...headers,
    '--data',
    shellQuote(JSON.stringify(entry.message)),
  ].join(' ');
}
