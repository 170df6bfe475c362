/**
 * `--sse-poll-ms` on the built CLI over real HTTP, with the official SDK v1 client (2025-11-25):
 * with the flag, a call still running after that long has its POST stream closed and the client
 * resumes it with a GET carrying Last-Event-ID; `--sse-poll-ms 0` turns polling off even when
 * MCP_RUN_SSE_POLL_MS asks for it (the flag wins over the variable).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnHttpCli } from '../transports/http-harness.js';

const MANIFEST = `server: { name: sse-poll, version: 1.0.0 }
tools:
  slow:
    kind: shell
    description: Answers after 800 ms.
    command: [node, -e, "setTimeout(() => console.log('finished'), 800)"]
    timeoutMs: 10000
`;

/** Calls the slow tool once; resolves with its text and the Last-Event-ID of each resuming GET. */
async function callSlow(url: string): Promise<{ text: string; resumes: string[] }> {
  const resumes: string[] = [];
  const spy: typeof fetch = (input, init) => {
    const last = new Headers(init?.headers).get('last-event-id');
    if (init?.method === 'GET' && last !== null) resumes.push(last);
    return fetch(input, init);
  };
  const client = new Client({ name: 'sse-poll', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: spy }));
  try {
    const result = (await client.callTool({ name: 'slow', arguments: {} })) as {
      content: { type: string; text: string }[];
    };
    return { text: result.content[0]!.text.trim(), resumes };
  } finally {
    await client.close();
  }
}

describe('--sse-poll-ms', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-poll-'));
    writeFileSync(join(dir, 'mcp.yaml'), MANIFEST);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const { MCP_RUN_SSE_POLL_MS: _unset, ...env } = process.env;

  it('polls a long call: the client resumes the stream and gets the result', async () => {
    const served = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch', '--sse-poll-ms', '100'], {
      cwd: dir,
      env,
    });
    try {
      const { text, resumes } = await callSlow(served.url);
      assert.equal(text, 'finished');
      assert.ok(resumes.length >= 1, 'the client resumed the polled stream');
      assert.match(resumes[0]!, /\/0$/, 'from the priming event');
    } finally {
      await served.stop();
    }
  });

  it('0 never polls, even with MCP_RUN_SSE_POLL_MS set', async () => {
    const served = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch', '--sse-poll-ms', '0'], {
      cwd: dir,
      env: { ...env, MCP_RUN_SSE_POLL_MS: '100' },
    });
    try {
      const { text, resumes } = await callSlow(served.url);
      assert.equal(text, 'finished');
      assert.deepEqual(resumes, []);
    } finally {
      await served.stop();
    }
  });

  it('refuses a value that is not a whole number of milliseconds', async () => {
    await assert.rejects(
      spawnHttpCli([join(dir, 'mcp.yaml'), '--sse-poll-ms', 'soon'], { cwd: dir, env }),
      /whole number of milliseconds/,
    );
  });
});
