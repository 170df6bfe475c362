/**
 * The built-in views in a real browser, judged by a host written by others: headless Chromium
 * (playwright-core), a page on ext-apps' AppBridge (test/apps/host/host.ts) that frames each view
 * sandboxed under a CSP with no network and no eval, and the official v2 client in Node talking to
 * `mcp-run --http` in each era with the `io.modelcontextprotocol/ui` extension declared. It checks
 * the table's rows and sort, the escaped row, an app-only action round trip through the bridge, one
 * chart mark per point and the card's fields. With MCP_RUN_WRITE_SCREENSHOTS=1 (`npm run
 * screenshots`) it also writes each view's picture into docs/; a plain run leaves the tree clean.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FrameLocator, Page } from 'playwright-core';
import { BROWSER_SKIP, type Browser, launchBrowser } from '../helpers/browser.js';
import { REPO } from '../helpers/demo.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { connect, ERAS, FIXTURE } from './harness.js';
import { serveHost } from './host-server.js';

type Json = Record<string, any>;
interface ComputedStyles {
  getComputedStyle(element: unknown): { backgroundColor: string; color: string };
}
/** What test/apps/host/host.ts adds to its page's window. */
interface HostPage {
  showView(html: string, args: Json, result: unknown, theme: 'light' | 'dark'): Promise<void>;
}

const SCREENSHOTS = process.env.MCP_RUN_WRITE_SCREENSHOTS === '1' ? join(REPO, 'docs/images') : undefined;
describe('the built-in views in Chromium through AppBridge', { skip: BROWSER_SKIP }, () => {
  let served: ServedCli;
  let host: { server: Server; url: string };
  let browser: Browser;

  before(async () => {
    [served, host, browser] = await Promise.all([spawnHttpCli([FIXTURE]), serveHost(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    host?.server.close();
    await served?.stop();
  });

  /** Calls the tool, reads its view, and shows both in the host; returns the view's frame. */
  async function show(
    page: Page,
    client: Client,
    tool: string,
    args: Json = {},
    theme: 'light' | 'dark' = 'light',
  ): Promise<FrameLocator> {
    const { tools } = (await client.listTools()) as Json;
    const uri = tools.find((t: Json) => t.name === tool)._meta.ui.resourceUri;
    const html = ((await client.readResource({ uri })) as Json).contents[0].text;
    const result = await client.callTool({ name: tool, arguments: args });
    await page.evaluate(
      ([h, a, r, t]) =>
        (globalThis as unknown as HostPage).showView(h as string, a as Json, r, t as 'light' | 'dark'),
      [html, args, result, theme] as const,
    );
    return page.frameLocator('iframe');
  }

  for (const era of ERAS) {
    test(`${era}: table, chart, card and an app-only action`, async () => {
      const client = await connect(served.url, era, true);
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(err.message));
      try {
        await page.exposeFunction('relayCallTool', (params: Json) => client.callTool(params as never));
        await page.goto(host.url);

        const table = await show(page, client, 'orders');
        const rows = table.locator('tbody tr');
        await rows.first().waitFor();
        // Six rows, four a page (`pageSize: 4`).
        assert.equal(await rows.count(), 4);
        assert.equal(await table.getByTestId('count').textContent(), '6 rows');
        await table.getByRole('button', { name: 'Next' }).click();
        assert.deepEqual(await rows.locator('td:first-child').allTextContents(), ['5', '6']);
        await table.getByRole('button', { name: 'Previous' }).click();
        // The filter keeps the rows any shown value contains the text of.
        await table.getByRole('searchbox', { name: 'Filter rows' }).fill('bo');
        assert.deepEqual(await rows.locator('td:nth-child(2)').allTextContents(), ['Bo']);
        await table.getByRole('searchbox', { name: 'Filter rows' }).fill('');
        // Copy as CSV: a sandbox without the clipboard permission gets the CSV to select.
        await table.getByRole('button', { name: 'Copy CSV' }).click();
        const csv = await table.getByRole('textbox', { name: 'CSV' }).inputValue();
        assert.equal(csv.split(/\r?\n/)[0], 'ID,Customer,Total,Placed');
        assert.equal(
          csv.split(/\r?\n/)[2],
          '2,"<img src=x onerror=""document.title=\'pwned\'"">",80,2025-02-10',
        );
        assert.deepEqual(await table.locator('thead th').allTextContents(), [
          'ID',
          'Customer',
          'Total',
          'Placed',
          'Actions',
        ]);
        // The markup in a row is its characters: no element was made of it, no handler ran.
        assert.equal(
          await rows.nth(1).locator('td').nth(1).textContent(),
          `<img src=x onerror="document.title='pwned'">`,
        );
        assert.equal(await table.locator('img').count(), 0);
        assert.equal(await rows.first().locator('td').nth(2).textContent(), '€120.50');
        // Sort by the Total header with the keyboard: ascending, then descending.
        await table.getByRole('button', { name: 'Total' }).focus();
        await page.keyboard.press('Enter');
        assert.equal(await rows.first().locator('td').nth(2).textContent(), '€15.25');
        await page.keyboard.press('Enter');
        assert.equal(await rows.first().locator('td').nth(2).textContent(), '€200.00');
        if (SCREENSHOTS)
          await page.locator('iframe').screenshot({ path: join(SCREENSHOTS, 'view-table.png') });
        // The app-only action: the view calls order_detail through the bridge, the host relays it.
        await rows.first().getByRole('button', { name: 'Details' }).click();
        const detail = table.locator('section.detail dd');
        await detail.first().waitFor();
        assert.deepEqual(await detail.allTextContents(), ['3', 'Bo', '200']);
        const calls = (await page.evaluate('window.appCalls')) as Json[];
        assert.deepEqual(
          calls.map(({ name, arguments: args }) => ({ name, args })),
          [{ name: 'order_detail', args: { id: 3 } }],
        );

        const chart = await show(page, client, 'monthly');
        await chart.locator('svg .mark').first().waitFor();
        assert.equal(await chart.locator('svg .mark').count(), 4, 'one bar per month');
        assert.equal(await chart.locator('svg').getAttribute('data-type'), 'bar');
        if (SCREENSHOTS)
          await page.locator('iframe').screenshot({ path: join(SCREENSHOTS, 'view-chart.png') });

        // Vega-Lite under a CSP without 'unsafe-eval': the interpreter, one bar per month.
        const vega = await show(page, client, 'monthly_vega');
        await vega.locator('svg g.mark-rect path').first().waitFor();
        assert.equal(await vega.locator('svg g.mark-rect path').count(), 4);
        if (SCREENSHOTS)
          await page.locator('iframe').screenshot({ path: join(SCREENSHOTS, 'view-chart-vega.png') });

        const card = await show(page, client, 'customer', {}, 'dark');
        await card.locator('dt').first().waitFor();
        // The host's dark theme: light text on a dark background.
        const colors = await card.locator('body').evaluate((body) => {
          // Runs in the frame; typed by hand as the Node tests' types have no DOM.
          const frame = body as unknown as { ownerDocument: { defaultView: ComputedStyles } };
          const style = frame.ownerDocument.defaultView.getComputedStyle(body);
          return [style.backgroundColor, style.color];
        });
        assert.deepEqual(colors, ['rgb(13, 17, 23)', 'rgb(230, 237, 243)']);
        assert.deepEqual(await card.locator('dt').allTextContents(), ['Name', 'Email', 'City']);
        assert.deepEqual(await card.locator('dd').allTextContents(), [
          'Ada Lovelace',
          'ada@example.com',
          'London',
        ]);
        if (SCREENSHOTS)
          await page.locator('iframe').screenshot({ path: join(SCREENSHOTS, 'view-card.png') });

        assert.notEqual(await page.title(), 'pwned');
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
        await client.close();
      }
    });
  }
});
