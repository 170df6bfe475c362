/**
 * The official SDK v1 client's reconnection against mcp-run's resumable streams: the server closes a
 * long call's POST stream (polling, ssePollMs) after its priming event, the client resumes it with a
 * GET carrying Last-Event-ID, and the call's result arrives through the resumed stream. The slow
 * tool is released only once the client's resuming GET was seen, so the result cannot have come on
 * the first POST stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Served, startHttp } from '../transports/http-harness.js';

describe('SDK v1 client: resuming a polled POST stream', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ ssePollMs: 50, sseRetryMs: 20 });
  });
  after(() => s.close());

  it('callTool resolves with the result delivered on the resumed stream, once', async () => {
    const resumes: string[] = [];
    const fetchSpy: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      const last = headers.get('last-event-id');
      if (init?.method === 'GET' && last !== null) resumes.push(last);
      return fetch(input, init);
    };
    const client = new Client({ name: 'resume-v1', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(s.url), { fetch: fetchSpy });
    await client.connect(transport);
    try {
      const answer = client.callTool({ name: 'slow', arguments: {} });
      while (resumes.length === 0) await sleep(5);
      while (s.fixture.probe.releaseSlow.length === 0) await sleep(5);
      for (const release of s.fixture.probe.releaseSlow.splice(0)) release();
      const result = (await answer) as { content: { type: string; text: string }[] };
      assert.deepEqual(result.content, [{ type: 'text', text: 'finished' }]);
      assert.match(resumes[0] as string, /^[0-9a-z]+\/0$/, 'resumed from the priming event');
      // Still one working session afterwards: the next call answers normally.
      const echo = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as {
        isError?: boolean;
      };
      assert.notEqual(echo.isError, true);
    } finally {
      await client.close();
    }
  });
});
