/**
 * The HTTP transport as an OAuth resource server, against a real issuer stand-in on 127.0.0.1 that
 * publishes RFC 8414 metadata and a JWKS (test/helpers/jwks-issuer.ts). Tokens are signed here with
 * locally generated keys (the verifier's unit level); the end-to-end flow with a real authorization
 * server is in test/e2e/oauth-sdk.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { inMemorySkill } from '../../src/catalog/skills.js';
import type { OAuthOptions } from '../../src/transports/http/server.js';
import { CLI } from '../helpers/demo.js';
import {
  type Claims,
  challenge,
  type JwksIssuer as Issuer,
  keyPair,
  sign,
  startJwksIssuer as startIssuer,
} from '../helpers/jwks-issuer.js';
import { type Json, post, postModern, type Served, send, startHttp } from './http-harness.js';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

const scopes = {
  required: ['mcp'],
  tools: { add: ['math'], boom: ['admin'] },
  prompts: { greet: ['prompts'] },
  resources: { 'test://static': ['files'], 'test://items/{id}': ['items'] },
};

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('OAuth resource server', () => {
  let issuer: Issuer;
  let s: Served;
  let k1: Awaited<ReturnType<typeof keyPair>>;
  let resource: string;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const good = (claims: Claims = {}) =>
    sign(k1.privateKey, 'k1', { iss: issuer.url, aud: resource, scope: 'mcp math', ...claims });

  before(async () => {
    issuer = await startIssuer();
    k1 = await keyPair('k1');
    issuer.published.push(k1.jwk);
    const oauth: OAuthOptions = { issuer: issuer.url, scopes, clockToleranceSec: 5, jwksCooldownMs: 0 };
    s = await startHttp({ auth: { oauth, bearerTokens: ['static-token'] } });
    resource = s.url;
  });
  after(async () => {
    await s.close();
    await issuer.close();
  });

  it('publishes RFC 9728 metadata at the path-suffixed and the bare well-known path', async () => {
    const origin = new URL(s.url).origin;
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await send(`${origin}${path}`, { method: 'GET' });
      assert.equal(res.status, 200, path);
      assert.deepEqual(res.json(), {
        resource,
        authorization_servers: [issuer.url],
        scopes_supported: ['admin', 'files', 'items', 'math', 'mcp', 'prompts'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('answers a request without a token with 401 pointing to the metadata, with the required scope', async () => {
    const res = await postModern(s.url, 1, 'tools/list');
    assert.equal(res.status, 401);
    const c = challenge(res.headers['www-authenticate']);
    assert.equal(c.resource_metadata, `${new URL(s.url).origin}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(c.scope, 'mcp');
    assert.equal(c.error, undefined, 'no error code when no token was sent (RFC 6750 §3.1)');
  });

  it('lists only the tools, prompts and resources the token may use (2026 era)', async () => {
    const token = await good();
    const tools = await postModern(s.url, 1, 'tools/list', {}, bearer(token));
    assert.equal(tools.status, 200, tools.body);
    const names: string[] = tools.json().result.tools.map((t: Json) => t.name);
    assert.ok(names.includes('add') && names.includes('echo'), names.join());
    assert.ok(!names.includes('boom'), 'boom needs admin');
    const prompts = await postModern(s.url, 2, 'prompts/list', {}, bearer(token));
    assert.ok(!prompts.json().result.prompts.some((p: Json) => p.name === 'greet'));
    const resources = await postModern(s.url, 3, 'resources/list', {}, bearer(token));
    assert.ok(!resources.json().result.resources.some((r: Json) => r.uri === 'test://static'));
  });

  it('lists by scope in a 2025 session too, per request token', async () => {
    const narrow = await good();
    const init = await post(s.url, initialize, bearer(narrow));
    assert.equal(init.status, 200, init.body);
    const session = init.headers['mcp-session-id'] as string;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post(
      s.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { ...headers, ...bearer(narrow) },
    );
    const list = await post(
      s.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...headers, ...bearer(narrow) },
    );
    const names: string[] = list.json().result.tools.map((t: Json) => t.name);
    assert.ok(names.includes('add') && !names.includes('boom'), names.join());
  });

  it('calls a tool the token covers', async () => {
    const res = await postModern(
      s.url,
      1,
      'tools/call',
      { name: 'add', arguments: { a: 2, b: 3 } },
      bearer(await good()),
    );
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json().result.structuredContent, { sum: 5 });
  });

  it('refuses a call without the tool scope with 403 insufficient_scope naming every needed scope', async () => {
    const res = await postModern(
      s.url,
      1,
      'tools/call',
      { name: 'boom', arguments: {} },
      bearer(await good()),
    );
    assert.equal(res.status, 403, res.body);
    const c = challenge(res.headers['www-authenticate']);
    assert.equal(c.error, 'insufficient_scope');
    assert.equal(c.scope, 'admin mcp');
    assert.ok(c.resource_metadata?.endsWith('/.well-known/oauth-protected-resource/mcp'));
  });

  it('refuses a read through a template that needs a scope, and hides the template', async () => {
    const token = await good();
    const read = await postModern(s.url, 1, 'resources/read', { uri: 'test://items/7' }, bearer(token));
    assert.equal(read.status, 403, read.body);
    assert.equal(challenge(read.headers['www-authenticate']).scope, 'items mcp');
    const list = await postModern(s.url, 2, 'resources/templates/list', {}, bearer(token));
    assert.deepEqual(list.json().result.resourceTemplates, []);
    const allowed = await postModern(
      s.url,
      3,
      'resources/read',
      { uri: 'test://items/7' },
      bearer(await good({ scope: 'mcp items' })),
    );
    assert.equal(allowed.status, 200, allowed.body);
  });

  it('refuses completing a prompt the token may not use', async () => {
    const params = { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'style', value: '' } };
    const res = await postModern(s.url, 1, 'completion/complete', params, bearer(await good()));
    assert.equal(res.status, 403, res.body);
    assert.equal(challenge(res.headers['www-authenticate']).scope, 'mcp prompts');
  });

  it('does not let another subject use a 2025 session (404, as for an unknown one)', async () => {
    const init = await post(s.url, initialize, bearer(await good({ sub: 'alice' })));
    const headers = {
      'mcp-session-id': init.headers['mcp-session-id'] as string,
      'mcp-protocol-version': '2025-11-25',
    };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const mallory = await post(s.url, list, { ...headers, ...bearer(await good({ sub: 'mallory' })) });
    assert.equal(mallory.status, 404, mallory.body);
    const alice = await post(s.url, list, { ...headers, ...bearer(await good({ sub: 'alice' })) });
    assert.equal(alice.status, 200, alice.body);
  });

  /** A 2025 session opened with `owner`'s token; whether `other`'s token may use it (else 404). */
  async function sessionShared(owner: Claims, other: Claims): Promise<boolean> {
    const init = await post(s.url, initialize, bearer(await good(owner)));
    assert.equal(init.status, 200, init.body);
    const headers = {
      'mcp-session-id': init.headers['mcp-session-id'] as string,
      'mcp-protocol-version': '2025-11-25',
    };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const own = await post(s.url, list, { ...headers, ...bearer(await good(owner)) });
    assert.equal(own.status, 200, own.body);
    const res = await post(s.url, list, { ...headers, ...bearer(await good(other)) });
    assert.ok(res.status === 200 || res.status === 404, res.body);
    return res.status === 200;
  }

  it("keys a token without sub on its client_id: another client's sub-less token gets 404 on its session", async () => {
    const a = { sub: undefined, client_id: 'svc-a' };
    assert.equal(await sessionShared(a, { sub: undefined, client_id: 'svc-b' }), false);
    assert.equal(await sessionShared(a, { sub: undefined, client_id: 'svc-a', scope: 'mcp' }), true);
  });

  it('never makes a subject and a client id one caller, whatever their text', async () => {
    const pairs: [Claims, Claims][] = [
      [{ sub: 'client:abc' }, { sub: undefined, client_id: 'abc' }],
      [{ sub: 'abc' }, { sub: undefined, client_id: 'abc' }],
      [{ sub: 'sub:abc' }, { sub: undefined, client_id: 'sub:abc' }],
    ];
    for (const [one, two] of pairs) {
      assert.equal(await sessionShared(one, two), false, `${JSON.stringify(one)} vs ${JSON.stringify(two)}`);
      assert.equal(await sessionShared(two, one), false, `${JSON.stringify(two)} vs ${JSON.stringify(one)}`);
    }
  });

  it('refuses a token without the required scope with 403', async () => {
    const res = await postModern(s.url, 1, 'tools/list', {}, bearer(await good({ scope: 'math' })));
    assert.equal(res.status, 403);
    const c = challenge(res.headers['www-authenticate']);
    assert.equal(c.error, 'insufficient_scope');
    assert.equal(c.scope, 'mcp');
  });

  const invalid: [string, () => Promise<string>, RegExp][] = [
    ['an expired token', () => good({ exp: Math.floor(Date.now() / 1000) - 60 }), /expired/],
    [
      'a token for another resource',
      () => good({ aud: 'http://127.0.0.1:1/other' }),
      /not meant for this resource/,
    ],
    ['a token from another issuer', () => good({ iss: 'http://127.0.0.1:1' }), /another issuer/],
    ['a token not yet valid', () => good({ nbf: Math.floor(Date.now() / 1000) + 600 }), /not yet valid/],
    [
      'an alg:none token',
      async () =>
        `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: issuer.url, aud: resource, sub: 'x', scope: 'mcp', exp: 9999999999 })}.`,
      /./,
    ],
    [
      'a token with a tampered payload',
      async () => {
        const [h, , sig] = (await good()).split('.');
        const payload = b64({
          iss: issuer.url,
          aud: resource,
          sub: 'mallory',
          scope: 'mcp math admin',
          exp: 9999999999,
        });
        return `${h}.${payload}.${sig}`;
      },
      /signature/,
    ],
    [
      'a token signed with an unknown key',
      async () =>
        sign((await keyPair('stranger')).privateKey, 'stranger', {
          iss: issuer.url,
          aud: resource,
          scope: 'mcp',
        }),
      /unknown key/,
    ],
    [
      'an HS256 token keyed with the public JWK',
      async () =>
        new SignJWT({ iss: issuer.url, aud: resource, scope: 'mcp', sub: 'x' })
          .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(JSON.stringify(k1.jwk))),
      /algorithm/,
    ],
    ['a token that is not a JWT (no introspection configured)', async () => 'opaque-value-123', /not a JWT/],
    [
      'a token with neither sub nor client_id',
      () => good({ sub: undefined }),
      /names no principal: it has neither a "sub" nor a "client_id" claim/,
    ],
    ['a token whose sub is not a string', () => good({ sub: 42, client_id: 'svc' }), /"sub" claim/],
    ['a token with an empty sub', () => good({ sub: '', client_id: 'svc' }), /"sub" claim/],
    [
      'a sub-less token with an empty client_id',
      () => good({ sub: undefined, client_id: '' }),
      /"client_id"/,
    ],
  ];
  for (const [what, make, why] of invalid) {
    it(`answers ${what} with 401 invalid_token`, async () => {
      const token = await make();
      const res = await postModern(s.url, 1, 'tools/list', {}, bearer(token));
      assert.equal(res.status, 401, res.body);
      const c = challenge(res.headers['www-authenticate']);
      assert.equal(c.error, 'invalid_token');
      assert.match(c.error_description ?? '', why);
      assert.ok(c.resource_metadata?.endsWith('/.well-known/oauth-protected-resource/mcp'));
      assert.ok(!res.body.includes(token), 'the answer does not echo the token');
    });
  }

  it('accepts a token signed with a key published after the first fetch (rotation)', async () => {
    await postModern(s.url, 1, 'tools/list', {}, bearer(await good()));
    const k2 = await keyPair('k2');
    issuer.published.push(k2.jwk);
    const token = await sign(k2.privateKey, 'k2', { iss: issuer.url, aud: resource, scope: 'mcp' });
    const res = await postModern(s.url, 1, 'tools/list', {}, bearer(token));
    assert.equal(res.status, 200, res.body);
  });

  it('keeps static tokens working beside OAuth, with every right', async () => {
    const res = await postModern(
      s.url,
      1,
      'tools/call',
      { name: 'boom', arguments: {} },
      bearer('static-token'),
    );
    assert.equal(res.status, 200, res.body);
  });

  it('never writes a token value to the log', async () => {
    const tokens = [await good(), await good({ exp: 1 }), 'opaque-value-123'];
    for (const token of tokens) await postModern(s.url, 9, 'tools/call', { name: 'boom' }, bearer(token));
    for (const token of tokens)
      for (const line of s.log.lines) assert.ok(!line.includes(token), `a log line holds a token: ${line}`);
  });
});

describe('OAuth resource server: the JWKS cannot be fetched', () => {
  let issuer: Issuer;
  let s: Served;
  let k1: Awaited<ReturnType<typeof keyPair>>;
  before(async () => {
    issuer = await startIssuer();
    k1 = await keyPair('k1');
    issuer.published.push(k1.jwk);
    issuer.jwksDown = true;
    s = await startHttp({ auth: { oauth: { issuer: issuer.url, jwksCooldownMs: 0 } } });
  });
  after(async () => {
    await s.close();
    await issuer.close();
  });

  it('answers 503, not an accepted token, while the JWKS endpoint fails', async () => {
    const token = await sign(k1.privateKey, 'k1', { iss: issuer.url, aud: s.url, scope: 'mcp' });
    const down = await postModern(s.url, 1, 'tools/list', {}, { authorization: `Bearer ${token}` });
    assert.equal(down.status, 503, down.body);
    assert.equal(down.headers['www-authenticate'], undefined);
    issuer.jwksDown = false;
    const up = await postModern(s.url, 2, 'tools/list', {}, { authorization: `Bearer ${token}` });
    assert.equal(up.status, 200, up.body);
  });

  it('answers 503 when the issuer itself cannot be reached', async () => {
    const gone = await startHttp({ auth: { oauth: { issuer: 'http://127.0.0.1:9' } } });
    try {
      const token = await sign(k1.privateKey, 'k1', {
        iss: 'http://127.0.0.1:9',
        aud: gone.url,
        scope: 'mcp',
      });
      const res = await postModern(gone.url, 1, 'tools/list', {}, { authorization: `Bearer ${token}` });
      assert.equal(res.status, 503, res.body);
    } finally {
      await gone.close();
    }
  });

  it('answers 503 for an opaque token while the introspection endpoint cannot be reached', async () => {
    const introspection = {
      endpoint: 'http://127.0.0.1:9/introspect',
      clientId: 'rs',
      clientSecret: 'rs-secret',
    };
    const served = await startHttp({ auth: { oauth: { issuer: issuer.url, introspection } } });
    try {
      const res = await postModern(served.url, 1, 'tools/list', {}, { authorization: 'Bearer opaque-abc' });
      assert.equal(res.status, 503, res.body);
      assert.ok(!served.log.lines.some((l) => l.includes('opaque-abc') || l.includes('rs-secret')));
    } finally {
      await served.close();
    }
  });
});

describe('OAuth resource server: the authorization server is stopped', () => {
  // A real issuer on 127.0.0.1 that serves its keys once, then stops: its port refuses connections.
  let issuer: Issuer;
  let s: Served;
  let k1: Awaited<ReturnType<typeof keyPair>>;
  let k2: Awaited<ReturnType<typeof keyPair>>;
  const list = (token: string) =>
    postModern(s.url, 1, 'tools/list', {}, { authorization: `Bearer ${token}` });
  before(async () => {
    issuer = await startIssuer();
    k1 = await keyPair('k1');
    k2 = await keyPair('k2');
    issuer.published.push(k1.jwk);
    s = await startHttp({ auth: { oauth: { issuer: issuer.url, jwksCooldownMs: 0, timeoutMs: 1000 } } });
  });
  after(async () => {
    await s.close();
  });

  /** Tokens no key could make valid, each with what the 401 should say. */
  const hopeless = async (): Promise<[string, string, RegExp][]> => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer.url, aud: s.url, scope: 'mcp' };
    const hs = await new SignJWT({ ...claims, sub: 'eve' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setExpirationTime(now + 300)
      .sign(new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!'));
    return [
      ['alg none', `${b64({ alg: 'none' })}.${b64({ ...claims, exp: now + 300 })}.`, /algorithm/],
      ['HS256', hs, /algorithm/],
      ['malformed payload', `${b64({ alg: 'ES256', kid: 'k1' })}.bm90LWpzb24.c2ln`, /malformed/],
      [
        'another audience',
        await sign(k1.privateKey, 'k1', { ...claims, aud: 'http://elsewhere/mcp' }),
        /not meant/,
      ],
      [
        'another issuer',
        await sign(k1.privateKey, 'k1', { ...claims, iss: 'http://127.0.0.1:9' }),
        /another issuer/,
      ],
      ['expired', await sign(k1.privateKey, 'k1', { ...claims, exp: now - 3600 }), /expired/],
      ['not yet valid', await sign(k1.privateKey, 'k1', { ...claims, nbf: now + 3600 }), /not yet valid/],
      ['no principal', await sign(k1.privateKey, 'k1', { ...claims, sub: undefined }), /names no principal/],
      [
        'an unknown key, another audience',
        await sign(k2.privateKey, 'k2', { ...claims, aud: 'x' }),
        /not meant/,
      ],
    ];
  };

  it('before any key was fetched: 401 for a token that can never be valid, 503 only for one that might be', async () => {
    await issuer.close();
    for (const [what, token, said] of await hopeless()) {
      const res = await list(token);
      assert.equal(res.status, 401, `${what}: ${res.body}`);
      assert.match(res.body, said, what);
      assert.equal(challenge(res.headers['www-authenticate']).error, 'invalid_token', what);
    }
    const plausible = await sign(k1.privateKey, 'k1', { iss: issuer.url, aud: s.url, scope: 'mcp' });
    const res = await list(plausible);
    assert.equal(res.status, 503, res.body);
  });
});

describe('OAuth resource server: the authorization server stops after serving its keys', () => {
  let issuer: Issuer;
  let s: Served;
  let k1: Awaited<ReturnType<typeof keyPair>>;
  let k2: Awaited<ReturnType<typeof keyPair>>;
  const list = (token: string) =>
    postModern(s.url, 1, 'tools/list', {}, { authorization: `Bearer ${token}` });
  before(async () => {
    issuer = await startIssuer();
    k1 = await keyPair('k1');
    k2 = await keyPair('k2');
    issuer.published.push(k1.jwk);
    s = await startHttp({ auth: { oauth: { issuer: issuer.url, jwksCooldownMs: 0, timeoutMs: 1000 } } });
  });
  after(async () => {
    await s.close();
  });

  it('the cached keys still admit a good token; a bad one gets 401; only an unknown key waits (503)', async () => {
    const claims = { iss: issuer.url, aud: s.url, scope: 'mcp' };
    assert.equal((await list(await sign(k1.privateKey, 'k1', claims))).status, 200);
    await issuer.close();
    assert.equal((await list(await sign(k1.privateKey, 'k1', claims))).status, 200, 'cached keys');
    const expired = await sign(k1.privateKey, 'k1', { ...claims, exp: Math.floor(Date.now() / 1000) - 3600 });
    assert.equal((await list(expired)).status, 401);
    const forged = await sign(k2.privateKey, 'k1', claims);
    assert.equal((await list(forged)).status, 401, 'a signature the cached key refutes');
    const rotated = await sign(k2.privateKey, 'k2', claims);
    assert.equal((await list(rotated)).status, 503, 'a new key needs the unreachable JWKS');
  });
});

describe('server.auth in the manifest', () => {
  const validate = async (auth: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-run-auth-'));
    try {
      const file = join(dir, 'mcp.yaml');
      await writeFile(
        file,
        `server:\n  auth: ${auth}\nprompts:\n  p: { description: P, messages: [{ role: user, text: hi }] }\n`,
      );
      return spawnSync(process.execPath, [CLI, 'validate', file], { encoding: 'utf8' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('accepts a complete block', async () => {
    const ok = await validate(
      '{ issuer: "https://as.example.com", resource: "https://mcp.example.com/mcp", clockToleranceSec: 10, scopes: { required: [mcp], tools: { t: [a] } } }',
    );
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  });

  for (const [what, auth] of [
    ['a block without issuer', '{ scopes: { required: [mcp] } }'],
    ['an unknown field', '{ issuer: "https://as.example.com", audience: x }'],
    ['alg none', '{ issuer: "https://as.example.com", algorithms: [none] }'],
    ['an issuer that is no URL', '{ issuer: as.example.com }'],
  ] as const) {
    it(`refuses ${what}`, async () => {
      const bad = await validate(auth);
      assert.notEqual(bad.status, 0, bad.stdout + bad.stderr);
      assert.match(bad.stdout + bad.stderr, /auth/);
    });
  }
});

describe('OAuth scopes on skills', () => {
  let issuer: Issuer;
  let s: Served;
  let k1: Awaited<ReturnType<typeof keyPair>>;
  const skill = inMemorySkill({
    name: 'orders',
    description: 'Use the orders tools.',
    files: new Map([['references/refunds.md', '# Refunds\n']]),
  });
  const token = (scope: string) => sign(k1.privateKey, 'k1', { iss: issuer.url, aud: s.url, scope });
  const bearer = async (scope: string) => ({ authorization: `Bearer ${await token(scope)}` });

  before(async () => {
    issuer = await startIssuer();
    k1 = await keyPair('k1');
    issuer.published.push(k1.jwk);
    const oauth: OAuthOptions = {
      issuer: issuer.url,
      scopes: { required: ['mcp'], resources: { 'skill://orders': ['orders'] } },
      jwksCooldownMs: 0,
    };
    s = await startHttp({
      auth: { oauth },
      catalog: {
        skills: new Map([[skill.name, skill]]),
        skillsSettings: { directoryRead: true, pageSize: 10 },
      },
    });
  });
  after(async () => {
    await s.close();
    await issuer.close();
  });

  it('the scopes of skill://<name> guard every method that reaches the skill, and hide it from lists', async () => {
    const without = await bearer('mcp');
    for (const [method, uri] of [
      ['skills/get', 'skill://orders/SKILL.md'],
      ['resources/read', 'skill://orders/references/refunds.md'],
      ['resources/directory/read', 'skill://orders'],
    ] as const) {
      const res = await postModern(s.url, 1, method, { uri }, without);
      assert.equal(res.status, 403, `${method}: ${res.body}`);
      assert.equal(challenge(res.headers['www-authenticate']).scope, 'mcp orders');
    }
    const hidden = await postModern(s.url, 2, 'skills/list', {}, without);
    assert.deepEqual(hidden.json().result.skills, []);
    const resources = await postModern(s.url, 3, 'resources/list', {}, without);
    assert.ok(!JSON.stringify(resources.json().result).includes('skill://orders'));

    const allowed = await bearer('mcp orders');
    const listed = await postModern(s.url, 4, 'skills/list', {}, allowed);
    assert.deepEqual(
      listed.json().result.skills.map((e: Json) => e.uri),
      ['skill://orders/SKILL.md'],
    );
    const read = await postModern(
      s.url,
      5,
      'resources/read',
      { uri: 'skill://orders/references/refunds.md' },
      allowed,
    );
    assert.equal(read.status, 200, read.body);
    assert.equal(read.json().result.contents[0].text, '# Refunds\n');
  });
});
