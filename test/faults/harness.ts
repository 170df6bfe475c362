/**
 * What every fault test counts: each call's outcome (a result, an error result, a JSON-RPC error,
 * or silence: no answer at all within a hard bound), how long the call took, and how long after the
 * fault was lifted calls succeed again. A lost call is a silent one; the suite asserts there are
 * none, and that recovery stays within its bound (docs/reliability.md lists the figures).
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from '../helpers/demo.js';

export type Outcome =
  | { readonly kind: 'ok'; readonly text: string; readonly ms: number }
  | { readonly kind: 'error'; readonly text: string; readonly ms: number }
  | { readonly kind: 'silent'; readonly ms: number };

/**
 * Runs one call, bounded by `hardMs`: past it the call counts as silent (lost). An error result
 * (`isError`) and a thrown JSON-RPC error both count as a clear error.
 */
export async function outcome(
  call: () => Promise<{ isError?: unknown; content?: unknown }>,
  hardMs: number,
): Promise<Outcome> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<'silent'>((resolve) => {
    timer = setTimeout(() => resolve('silent'), hardMs);
  });
  try {
    const result = await Promise.race([call(), silence]);
    const ms = Date.now() - started;
    if (result === 'silent') return { kind: 'silent', ms };
    const text = textOf(result.content);
    return result.isError === true ? { kind: 'error', text, ms } : { kind: 'ok', text, ms };
  } catch (err) {
    return {
      kind: 'error',
      text: err instanceof Error ? err.message : String(err),
      ms: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
  }
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((c: { text?: unknown }) => (typeof c.text === 'string' ? c.text : '')).join('\n');
}

/**
 * Calls `call` until it succeeds, at most until `boundMs` has passed; resolves with how long that
 * took (ms), or throws with the last outcome when it never did.
 */
export async function recovery(
  call: () => Promise<Outcome>,
  boundMs: number,
  pauseMs = 100,
): Promise<number> {
  const started = Date.now();
  let last: Outcome | undefined;
  while (Date.now() - started < boundMs) {
    last = await call();
    if (last.kind === 'ok') return Date.now() - started;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  throw new Error(`no successful call within ${boundMs} ms; the last: ${JSON.stringify(last)}`);
}

/** A process's resident set (bytes), from /proc. */
export function rssOf(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(line[1]) * 1024;
}

/** mcp-run serving `manifest` on stdio, with the official v1 client connected. */
export async function stdioServer(
  manifest: string,
  args: string[] = [],
): Promise<{ client: Client; pid: number; stderr: () => string; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, manifest, ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'faults', version: '1' });
  await client.connect(transport).catch((err: Error) => {
    throw new Error(`mcp-run did not start: ${err.message}\n${stderr}`);
  });
  const pid = transport.pid;
  if (pid === null) throw new Error('the server has no pid');
  return { client, pid, stderr: () => stderr, close: () => client.close() };
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
