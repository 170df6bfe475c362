// The built CLI serving over HTTP with JSON logs, and a 2025-era session to call its tools.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI } from '../helpers/demo.js';

export interface Served {
  readonly base: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** Calls a tool in this server's one session (initialized on first use). */
  call(name: string, args: unknown, headers?: Record<string, string>): Promise<ToolAnswer>;
  /** POSTs one JSON-RPC message in the session; the raw response. */
  post(message: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export interface ToolAnswer {
  result?: { isError?: boolean; content: { text: string }[] };
  error?: { code: number; message: string };
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * Opens a 2025-era session on the server at `base` (`initialize`, then `notifications/initialized`);
 * resolves with the headers every later request in it carries.
 */
export async function openSession(base: string): Promise<Record<string, string>> {
  const post = (message: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...headers },
      body: JSON.stringify(message),
    });
  const res = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'ops-test', version: '1' },
    },
  });
  await res.text();
  const session = res.headers.get('mcp-session-id') ?? undefined;
  assert.ok(session, 'initialize gave a session');
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  return headers;
}

/** Starts `mcp-run <manifest> --http --port 0 --log-format json <args>`; resolves once it listens. */
export async function serveJson(manifest: string, args: string[], { watch = false } = {}): Promise<Served> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      manifest,
      '--http',
      '--port',
      '0',
      '--log-format',
      'json',
      ...(watch ? [] : ['--no-watch']),
      ...args,
    ],
    { stdio: 'pipe', env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' } },
  );
  let stderr = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const m = /"msg":"listening on (http:\/\/[^"]+)\/mcp"/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  let session: string | undefined;
  let nextId = 1;
  const post = (message: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...JSON_HEADERS,
        ...(session && { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }),
        ...headers,
      },
      body: JSON.stringify(message),
    });
  const open = async () => {
    const headers = await openSession(base);
    session = headers['mcp-session-id'];
  };
  return {
    base,
    child,
    stderr: () => stderr,
    post: async (message, headers) => {
      if (!session) await open();
      return post(message, headers);
    },
    async call(name, args, headers = {}) {
      if (!session) await open();
      const res = await post(
        { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
        headers,
      );
      const text = await res.text();
      const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
      assert.ok(json, `no JSON-RPC answer: ${res.status} ${text}`);
      return JSON.parse(json) as ToolAnswer;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Waits until `check` holds, for output that arrives on its own schedule (no timing asserted). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 10_000,
): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
