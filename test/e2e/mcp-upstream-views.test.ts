/**
 * `kind: mcp` with MCP Apps views, end to end: the built CLI over `--http` serves the real
 * `@modelcontextprotocol/server-basic-vanillajs` (ext-apps' example, over stdio) and a small probe
 * of views behind `expose.tools.prefix`, and the official v2 client, in both eras, with and without
 * the `io.modelcontextprotocol/ui` extension, sees each tool's view at the URI mcp-run serves it at
 * (`ui://<prefix>~<source>/<rest>`), reads the page through to the upstream, and never the
 * upstream's own URI. The page's `_meta.ui` arrives checked; a result's `_meta` arrives without the
 * protocol's reserved keys.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, ERAS, VIEW_MIME } from '../apps/harness.js';
import { REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = Record<string, any>;
const BASIC = join(REPO, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist');
const PROBE = join(REPO, 'test/fixtures/mcp-upstream/app-probe.mjs');
const node = JSON.stringify(process.execPath);

const CLOCK_VIEW = 'ui://clock_~clock/get-time/mcp-app.html';
const SHOW_VIEW = 'ui://app_~probe/show/page.html';
const LEGACY_VIEW = 'ui://app_~probe/legacy/page.html';
/** Served by `expose.resources` entries: one a tool names too, one whose tool is left out. */
const PAGES_SHOW = 'ui://pg_~pages/show/page.html';
const PAGES_HIDDEN = 'ui://pg_~pages/hidden/page.html';

const files = tempFiles({});
const manifest = join(files.dir, 'mcp.yaml');
writeFileSync(
  manifest,
  `
sources:
  clock:
    kind: mcp
    command: [${node}, ${JSON.stringify(join(BASIC, 'index.js'))}, --stdio]
    expose:
      tools: { prefix: clock_ }
  probe:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    expose:
      tools: { prefix: app_, exclude: [hidden] }
  pages:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    expose:
      tools: { prefix: pg_, include: [show] }
      resources: { include: ['ui://show/*', 'ui://hidden/*'] }
tools:
  now:
    kind: mcp
    source: clock
    tool: get-time
    description: The clock's time, declared one at a time.
`,
);

describe('kind: mcp: an upstream’s MCP Apps views, through mcp-run', () => {
  let served: ServedCli;
  before(async () => {
    served = await spawnHttpCli([manifest]);
  });
  after(async () => {
    await served?.stop();
    files.cleanup();
  });

  for (const era of ERAS) {
    describe(era, () => {
      let client: Client;
      let plain: Client;
      before(async () => {
        [client, plain] = await Promise.all([
          connect(served.url, era, true),
          connect(served.url, era, false),
        ]);
      });
      after(async () => {
        await Promise.all([client?.close(), plain?.close()]);
      });

      test('tools/list names each view at the URI mcp-run serves it at, both keys', async () => {
        const { tools } = (await client.listTools()) as Json;
        const meta = (name: string) => tools.find((t: Json) => t.name === name)?._meta;
        assert.deepEqual(meta('clock_get-time'), {
          ui: { resourceUri: CLOCK_VIEW },
          'ui/resourceUri': CLOCK_VIEW,
        });
        // The tool declared one at a time names the same page of the same source.
        assert.deepEqual(meta('now'), meta('clock_get-time'));
        assert.deepEqual(meta('app_show'), { ui: { resourceUri: SHOW_VIEW }, 'ui/resourceUri': SHOW_VIEW });
        assert.deepEqual(meta('app_refresh'), {
          ui: { resourceUri: SHOW_VIEW, visibility: ['app'] },
          'ui/resourceUri': SHOW_VIEW,
        });
        // Named by the flat key alone upstream: both keys here.
        assert.deepEqual(meta('app_legacy'), {
          ui: { resourceUri: LEGACY_VIEW },
          'ui/resourceUri': LEGACY_VIEW,
        });
        assert.equal(meta('app_hidden'), undefined);
        // Only views call it, and it has no page: its visibility alone.
        assert.deepEqual(meta('app_poll'), { ui: { visibility: ['app'] } });
      });

      test('resources/list has each page once, at its served URI, with its checked _meta.ui', async () => {
        const { resources } = (await client.listResources()) as Json;
        const uris = resources.map((r: Json) => r.uri).sort();
        assert.deepEqual(uris, [SHOW_VIEW, LEGACY_VIEW, CLOCK_VIEW, PAGES_SHOW, PAGES_HIDDEN].sort());
        const clock = resources.find((r: Json) => r.uri === CLOCK_VIEW);
        assert.equal(clock.mimeType, VIEW_MIME);
        assert.equal(clock._meta, undefined);
        const show = resources.find((r: Json) => r.uri === SHOW_VIEW);
        assert.deepEqual(show._meta, { ui: CHECKED_UI });
        // A page an expose.resources entry serves: rewritten by the same rule, checked the same way.
        const pages = resources.find((r: Json) => r.uri === PAGES_SHOW);
        assert.deepEqual(pages._meta, { ui: CHECKED_UI });
        assert.equal(pages.mimeType, VIEW_MIME);
      });

      test('a resource entry serves the page its tool names, and one whose tool is left out', async () => {
        const { tools } = (await client.listTools()) as Json;
        assert.equal(tools.find((t: Json) => t.name === 'pg_show')._meta.ui.resourceUri, PAGES_SHOW);
        for (const uri of [PAGES_SHOW, PAGES_HIDDEN]) {
          const { contents } = (await client.readResource({ uri })) as Json;
          assert.equal(contents[0].uri, uri);
          assert.deepEqual(contents[0]._meta, { ui: CHECKED_UI });
        }
      });

      test("resources/read of the served URI is the upstream's page, with its type and meta", async () => {
        const { contents } = (await client.readResource({ uri: CLOCK_VIEW })) as Json;
        assert.equal(contents.length, 1);
        assert.equal(contents[0].uri, CLOCK_VIEW);
        assert.equal(contents[0].mimeType, VIEW_MIME);
        assert.equal(contents[0].text, readFileSync(join(BASIC, 'mcp-app.html'), 'utf8'));
        const show = (await client.readResource({ uri: SHOW_VIEW })) as Json;
        assert.equal(show.contents[0].uri, SHOW_VIEW);
        assert.deepEqual(show.contents[0]._meta, { ui: CHECKED_UI });
        assert.match(show.contents[0].text, /the probe view/);
      });

      test("the upstream's own URIs, and a filtered-out tool's page, are unknown", async () => {
        for (const uri of [
          'ui://get-time/mcp-app.html',
          'ui://show/page.html',
          'ui://app_~probe/hidden/page.html',
        ])
          await assert.rejects(client.readResource({ uri }), (err: Json) => {
            assert.match(String(err.message), /not found|unknown/i, uri);
            return true;
          });
      });

      test("a result's _meta reaches the view without the protocol's reserved keys", async () => {
        const result = (await client.callTool({ name: 'app_show', arguments: {} })) as Json;
        assert.deepEqual(result.structuredContent, { shown: true });
        const {
          'mcp-run/contract': _hash,
          'io.modelcontextprotocol/serverInfo': _server,
          ...meta
        } = result._meta ?? {};
        assert.deepEqual(meta, { viewState: { page: 2 } });
        // The basic server's time still comes back as it sent it.
        const time = (await client.callTool({ name: 'clock_get-time', arguments: {} })) as Json;
        assert.match(time.structuredContent.time, /^\d{4}-\d\d-\d\dT/);
      });

      test('a client without the extension sees no view, no page and no app-only tool', async () => {
        const { tools } = (await plain.listTools()) as Json;
        assert.ok(tools.some((t: Json) => t.name === 'clock_get-time'));
        assert.ok(tools.every((t: Json) => t._meta === undefined));
        for (const appOnly of ['app_refresh', 'app_poll'])
          assert.equal(
            tools.find((t: Json) => t.name === appOnly),
            undefined,
            appOnly,
          );
        // Only the page no served tool names, which its resource entry lists as any resource.
        const { resources } = (await plain.listResources()) as Json;
        assert.deepEqual(
          resources.map((r: Json) => r.uri),
          [PAGES_HIDDEN],
        );
        await assert.rejects(plain.callTool({ name: 'app_refresh', arguments: {} }));
        await assert.rejects(plain.callTool({ name: 'app_poll', arguments: {} }));
        const polled = (await client.callTool({ name: 'app_poll', arguments: {} })) as Json;
        assert.equal(polled.content[0].text, 'polled');
        // A read by URI answers any client, as for mcp-run's own views.
        const { contents } = (await plain.readResource({ uri: CLOCK_VIEW })) as Json;
        assert.equal(contents[0].mimeType, VIEW_MIME);
      });
    });
  }
});

/** The probe's `_meta.ui` as passed on: spec fields only, each of its type, no injected CSP source. */
const CHECKED_UI = {
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] },
  permissions: { clipboardWrite: {} },
  domain: 'probe.example.com',
  prefersBorder: false,
};

/** The names tools/list gives over HTTP, and the text of a read of `uri` (undefined: unknown). */
async function servedBy(file: string, uri?: string): Promise<{ names: string[]; page?: string }> {
  const served = await spawnHttpCli([file]);
  try {
    const client = await connect(served.url, ERAS[0]!, true);
    try {
      const { tools } = (await client.listTools()) as Json;
      const names = tools.map((t: Json) => t.name as string);
      if (uri === undefined) return { names };
      const read = (await client.readResource({ uri }).catch(() => undefined)) as Json | undefined;
      return { names, ...(read !== undefined && { page: read.contents[0].text }) };
    } finally {
      await client.close();
    }
  } finally {
    await served.stop();
  }
}

test("two upstreams' pages at one URI, with no prefix to tell them apart: the second's tool is left out with a warning, which --strict refuses", async () => {
  const dup = tempFiles({
    'mcp.yaml': `
sources:
  one:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    expose: { tools: { include: [show] } }
  two:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    expose: { tools: { include: [show], overrides: { show: { name: show_too } } } }
`,
  });
  try {
    // An upstream's lists are outside text: what clashes is left out, the rest served.
    const run = runCli(['validate', join(dup.dir, 'mcp.yaml')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /source two's tool "show" is left out: resource URI "ui:\/\/show\/page\.html" is already served/,
    );
    const strict = runCli(['validate', '--strict', join(dup.dir, 'mcp.yaml')]);
    assert.notEqual(strict.code, 0, strict.stderr);
    // Left out means not served: show_too would render source one's page as its own view.
    const { names } = await servedBy(join(dup.dir, 'mcp.yaml'));
    assert.ok(names.includes('show'), names.join());
    assert.ok(!names.includes('show_too'), names.join());
  } finally {
    dup.cleanup();
  }
});

test("an unprefixed upstream naming another source's page (ui://<prefix>~<source>/…) serves neither the page nor its tool", async () => {
  const GOOD = 'ui://x_~good/show/page.html';
  const odd = tempFiles({
    'mcp.yaml': `
sources:
  bad:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}, --odd, ${JSON.stringify(GOOD)}]
    expose:
      tools: { include: [odd] }
      resources: { include: [${JSON.stringify(GOOD)}] }
  good:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    expose: { tools: { prefix: x_, include: [show] } }
`,
  });
  try {
    const run = runCli(['validate', join(odd.dir, 'mcp.yaml')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /source bad's tool "odd" is left out: resource URI "ui:\/\/x_~good\/show\/page\.html"/,
    );
    assert.match(run.stderr, /source bad's resource "ui:\/\/x_~good\/show\/page\.html" is left out/);
    const { names, page } = await servedBy(join(odd.dir, 'mcp.yaml'), GOOD);
    assert.ok(names.includes('x_show') && !names.includes('odd'), names.join());
    assert.match(page ?? '', /the probe view/);
  } finally {
    odd.cleanup();
  }
});

test("an upstream's resource at the URI of a view of the manifest's own is left out with a warning: the load never fails on it", () => {
  const own = tempFiles({
    'mcp.yaml': `
sources:
  mem: { kind: sqlite, path: ":memory:" }
  bad:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}, --odd, "ui://sales/view.html"]
    expose:
      tools: { include: [show] }
      resources: { include: ["ui://sales/view.html"] }
tools:
  sales:
    kind: sql
    source: mem
    sql: SELECT 'north' AS region, 10 AS total
    ui: table
`,
  });
  try {
    const run = runCli(['validate', join(own.dir, 'mcp.yaml')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /source bad's resource "ui:\/\/sales\/view\.html" is left out: resource URI "ui:\/\/sales\/view\.html" is already served by the view of tools\.sales/,
    );
  } finally {
    own.cleanup();
  }
});
