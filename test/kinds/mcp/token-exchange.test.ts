/**
 * The settings of `auth: { tokenExchange }` on an `mcp` source that cannot work are refused when
 * the source opens, each with SOURCE_TOKEN_EXCHANGE_REFUSED and a sentence naming what to change;
 * a valid one opens (its lists read with `listingAuth`, against a real upstream on 127.0.0.1) and
 * serves its tools only, refusing a call without a verified caller. The per-caller sessions
 * themselves: test/e2e/mcp-upstream-token-exchange.test.ts.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compileCatalog } from '../../../src/catalog/compile.js';
import type { Catalog } from '../../../src/catalog/types.js';
import { ManifestError } from '../../../src/errors.js';
import { builtinKinds } from '../../../src/kinds/builtin.js';
import { StderrLogger } from '../../../src/log.js';
import { loadManifest } from '../../../src/manifest/load.js';
import { type AuthUpstream, startAuthUpstream } from '../../fixtures/mcp-upstream/auth-http.js';
import { callContext, tempDir } from '../context.js';

const LISTING = 'listing-token-0c4e91';
const EXCHANGE =
  '{ tokenExchange: { tokenUrl: "http://127.0.0.1:9/token", clientId: mcp-run, clientSecret: exchange-secret-77 } }';
const SERVER_AUTH = 'server:\n  auth: { issuer: "http://127.0.0.1:9" }\n';

let upstream: AuthUpstream;
before(async () => {
  upstream = await startAuthUpstream((token) => (token === LISTING ? 'listing' : undefined));
});
after(() => upstream.close());

async function compile(manifest: string): Promise<Catalog> {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(file, manifest);
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

/** Rejects with SOURCE_TOKEN_EXCHANGE_REFUSED at `path`, its message matching `pattern`. */
async function refused(manifest: string, path: string, pattern: RegExp): Promise<void> {
  await assert.rejects(compile(manifest), (err: unknown) => {
    assert.ok(err instanceof ManifestError, String(err));
    const d = err.diagnostics.find((x) => x.code === 'SOURCE_TOKEN_EXCHANGE_REFUSED');
    assert.ok(d, JSON.stringify(err.diagnostics));
    assert.equal(d.path, path);
    assert.match(`${d.message} ${d.hint ?? ''}`, pattern);
    assert.ok(!`${d.message} ${d.hint}`.includes('exchange-secret-77'), 'the secret is in the message');
    return true;
  });
}

const source = (lines: string) =>
  `sources:\n  up:\n    kind: mcp\n${lines
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

describe('auth: { tokenExchange } on an mcp source', () => {
  test('a stdio upstream is refused: a program gets no HTTP request to carry a token', async () => {
    await refused(
      SERVER_AUTH +
        source(`command: [node, server.js]\nauth: ${EXCHANGE}\nlistingAuth: { bearer: ${LISTING} }`),
      'sources.up.auth.tokenExchange',
      /meaningless for a stdio upstream.*url:/,
    );
  });

  test('without server.auth it is refused, naming server.auth', async () => {
    await refused(
      source(`url: ${upstream.url}\nauth: ${EXCHANGE}\nlistingAuth: { bearer: ${LISTING} }`),
      'sources.up.auth.tokenExchange',
      /no server\.auth/,
    );
  });

  test('without listingAuth it is refused: the lists are read with no caller', async () => {
    await refused(
      SERVER_AUTH + source(`url: ${upstream.url}\nauth: ${EXCHANGE}`),
      'sources.up.auth.tokenExchange',
      /no caller.*listingAuth/,
    );
  });

  test('listingAuth or maxSessions without a token exchange is refused', async () => {
    await refused(
      source(`url: ${upstream.url}\nauth: { bearer: ${LISTING} }\nlistingAuth: { bearer: ${LISTING} }`),
      'sources.up.listingAuth',
      /is for a source whose `auth` is a token exchange/,
    );
    await refused(
      source(`url: ${upstream.url}\nauth: { bearer: ${LISTING} }\nmaxSessions: 4`),
      'sources.up.maxSessions',
      /token exchange/,
    );
  });

  test('expose.resources is refused: only tools are served per caller', async () => {
    await refused(
      SERVER_AUTH +
        source(
          `url: ${upstream.url}\nauth: ${EXCHANGE}\nlistingAuth: { bearer: ${LISTING} }\nexpose: { tools: {}, resources: {} }`,
        ),
      'sources.up.expose.resources',
      /only the upstream's tools/,
    );
  });

  test('a kind: mcp prompt or resource on it is refused: neither carries a caller', async () => {
    const base = `${SERVER_AUTH}${source(`url: ${upstream.url}\nauth: ${EXCHANGE}\nlistingAuth: { bearer: ${LISTING} }`)}`;
    await refused(
      `${base}prompts:\n  p: { kind: mcp, source: up, prompt: greet }\n`,
      'prompts.p.source',
      /only an upstream's tools are served per caller/,
    );
    await refused(
      `${base}resources:\n  r: { kind: mcp, source: up, uri: "file:///x" }\n`,
      'resources.r.source',
      /a resource is read with no caller/,
    );
  });

  test('listingAuth cannot itself be a token exchange (the schema)', async () => {
    await assert.rejects(
      compile(SERVER_AUTH + source(`url: ${upstream.url}\nauth: ${EXCHANGE}\nlistingAuth: ${EXCHANGE}`)),
      (err: unknown) => err instanceof ManifestError && /listingAuth/.test(JSON.stringify(err.diagnostics)),
    );
  });

  test('a valid one opens with listingAuth, serves tools, and refuses a call without a verified caller', async () => {
    const before = upstream.seen.length;
    const catalog = await compile(
      `${SERVER_AUTH}${source(`url: ${upstream.url}\nauth: ${EXCHANGE}\nlistingAuth: { bearer: ${LISTING} }\nexpose: { tools: {} }`)}`,
    );
    try {
      assert.ok(upstream.seen.length > before, 'the lists were read');
      for (const r of upstream.seen.slice(before)) assert.equal(r.authorization, `Bearer ${LISTING}`);
      const result = await catalog.tools.get('whoami')!.call({}, callContext());
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(result.content), /no verified caller.*server\.auth/);
    } finally {
      await catalog.dispose();
    }
  });
});
