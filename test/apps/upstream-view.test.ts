/**
 * An upstream's own view in a real browser: `@modelcontextprotocol/server-basic-vanillajs` behind
 * `mcp-run --http` with `expose.tools.prefix`, its page read from the URI mcp-run serves it at and
 * framed by the test host on ext-apps' AppBridge (host/host.ts) under a CSP with no network and no
 * eval, in each era. The page shows the time of the result the host hands it, and its button calls
 * `get-time` through the bridge and mcp-run: the view calls the upstream's name, which the manifest
 * keeps with `overrides` (docs/upstream-mcp.md, "Views").
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BROWSER_SKIP, type Browser, launchBrowser } from '../helpers/browser.js';
import { REPO, tempFiles } from '../helpers/demo.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { connect, ERAS } from './harness.js';
import { serveHost } from './host-server.js';

type Json = Record<string, any>;
interface HostPage {
  showView(html: string, args: Json, result: unknown, theme: 'light' | 'dark'): Promise<void>;
  appCalls: Json[];
}
const BASIC = join(REPO, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const files = tempFiles({
  'mcp.yaml': `
sources:
  clock:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(BASIC)}, --stdio]
    expose:
      tools:
        prefix: clock_
        overrides: { get-time: { name: get-time } }
`,
});

describe("an upstream's view in Chromium through AppBridge", { skip: BROWSER_SKIP }, () => {
  let served: ServedCli;
  let host: { server: Server; url: string };
  let browser: Browser;

  before(async () => {
    [served, host, browser] = await Promise.all([
      spawnHttpCli([join(files.dir, 'mcp.yaml')]),
      serveHost(),
      launchBrowser(),
    ]);
  });
  after(async () => {
    await browser?.close();
    host?.server.close();
    await served?.stop();
    files.cleanup();
  });

  for (const era of ERAS) {
    test(`${era}: the page shows the result, and its button's call goes through mcp-run`, async () => {
      const client = await connect(served.url, era, true);
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(err.message));
      try {
        await page.exposeFunction('relayCallTool', (params: Json) => client.callTool(params as never));
        await page.goto(host.url);
        const { tools } = (await client.listTools()) as Json;
        const uri = tools.find((t: Json) => t.name === 'get-time')._meta.ui.resourceUri;
        assert.equal(uri, 'ui://clock_~clock/get-time/mcp-app.html');
        const html = ((await client.readResource({ uri })) as Json).contents[0].text;
        const result = (await client.callTool({ name: 'get-time', arguments: {} })) as Json;
        const first = result.structuredContent.time as string;
        assert.match(first, ISO);
        await page.evaluate(
          ([h, r]) => (globalThis as unknown as HostPage).showView(h as string, {}, r, 'light'),
          [html, result] as const,
        );
        const view = page.frameLocator('iframe');
        const time = view.locator('#server-time');
        await time.filter({ hasText: first }).waitFor();
        await view.locator('#get-time-btn').click();
        // A later call's time: the view's own call reached the upstream through the bridge and mcp-run.
        await time.filter({ hasNotText: first }).waitFor();
        assert.match((await time.textContent()) ?? '', ISO);
        const calls = await page.evaluate(() => (globalThis as unknown as HostPage).appCalls);
        assert.deepEqual(
          calls.map((c) => c.name),
          ['get-time'],
        );
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
        await client.close();
      }
    });
  }
});
