/**
 * CallerSessions (src/kinds/mcp/sessions.ts) on its own, with real parts: the shared token
 * exchange (src/kinds/shared/oauth.ts) against a token endpoint on 127.0.0.1, and the Streamable
 * HTTP upstream fixture. What the end-to-end test cannot wait for: a session left unused past
 * `idleMs` is closed with its DELETE, and the next call of that caller opens a new one.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { CallerIdentity } from '../../../src/kinds/contract/types.js';
import { startHttp } from '../../../src/kinds/mcp/http-channel.js';
import { CallerSessions } from '../../../src/kinds/mcp/sessions.js';
import { Upstream } from '../../../src/kinds/mcp/upstream.js';
import { tokenExchange } from '../../../src/kinds/shared/oauth.js';
import { StderrLogger } from '../../../src/log.js';
import { type AuthUpstream, startAuthUpstream } from '../../fixtures/mcp-upstream/auth-http.js';

const SECRET = 'sessions-secret-1f0a';
const issued = new Map<string, string>();
let tokenServer: Server;
let tokenUrl = '';
let upstream: AuthUpstream;

before(async () => {
  let n = 0;
  tokenServer = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      // The caller's token is `caller-<name>`: the exchanged one names the same subject.
      const subject = (new URLSearchParams(body).get('subject_token') ?? '').replace(/^caller-/, '');
      const token = `exchanged-${subject}-${++n}`;
      issued.set(token, subject);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
  upstream = await startAuthUpstream((token) => issued.get(token));
});
after(async () => {
  await upstream.close();
  tokenServer.closeAllConnections();
  await new Promise((resolve) => tokenServer.close(resolve));
});

const caller = (name: string): CallerIdentity => ({
  issuer: 'http://issuer.test',
  subject: name,
  claims: { sub: name },
  expiresAt: undefined,
  accessToken: () => `caller-${name}`,
});

function sessions(idleMs: number): CallerSessions {
  const log = new StderrLogger('silent');
  return new CallerSessions({
    name: 'upstream test',
    tokens: tokenExchange({ tokenUrl, clientId: 'mcp-run', clientSecret: SECRET }),
    maxSessions: 4,
    idleMs,
    maxConcurrency: 4,
    log,
    open: (token, refused) =>
      new Upstream({
        name: 'upstream test',
        restartOnExit: false,
        era: '2025',
        connectTimeoutMs: 10_000,
        maxConcurrency: 4,
        maxResultBytes: 1 << 20,
        log,
        connect: async (events) =>
          startHttp(
            {
              name: 'upstream test',
              url: upstream.url,
              headers: { authorization: `Bearer ${token}` },
              tokens: { token: async () => token, refused, held: () => [token] },
              maxMessageBytes: 1 << 20,
              requestTimeoutMs: 10_000,
              log,
            },
            events,
          ),
      }),
  });
}

const whoami = (s: CallerSessions, name: string) =>
  s.use(caller(name), AbortSignal.timeout(10_000), (client) =>
    client.request('tools/call', { name: 'whoami', arguments: {} }, { timeoutMs: 10_000 }),
  );

describe('caller sessions', () => {
  test('a session unused past idleMs is closed with its DELETE; the next call opens a new one', async () => {
    const s = sessions(200);
    try {
      const first = JSON.stringify(await whoami(s, 'erin'));
      assert.match(first, /subject=erin/);
      assert.equal(s.size, 1);
      const opened = [...upstream.opened.keys()].at(-1)!;
      // The sweep runs every second: wait for the DELETE it sends (bounded), not for a fixed time.
      for (
        let i = 0;
        i < 400 && !upstream.seen.some((r) => r.method === 'DELETE' && r.session === opened);
        i++
      )
        await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(
        upstream.seen.some((r) => r.method === 'DELETE' && r.session === opened),
        'no DELETE',
      );
      assert.equal(s.size, 0);
      assert.match(JSON.stringify(await whoami(s, 'erin')), /subject=erin/);
      assert.notEqual([...upstream.opened.keys()].at(-1), opened, 'a new session was opened');
    } finally {
      await s.dispose();
    }
  });

  test('held() lists the exchanged tokens of the open sessions (to redact), and dispose closes them all', async () => {
    const s = sessions(60_000);
    await whoami(s, 'frank');
    await whoami(s, 'gina');
    const held = s.held();
    assert.equal(held.length, 2);
    assert.deepEqual(held.map((t) => issued.get(t)).sort(), ['frank', 'gina']);
    const before = upstream.seen.filter((r) => r.method === 'DELETE').length;
    await s.dispose();
    assert.equal(upstream.seen.filter((r) => r.method === 'DELETE').length, before + 2);
    assert.deepEqual(s.held(), []);
    await assert.rejects(whoami(s, 'frank'), /shut down/);
  });
});
