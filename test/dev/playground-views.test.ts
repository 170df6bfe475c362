/**
 * The playground hosts a tool's MCP Apps view as a real host does: `mcp-run dev` on the apps test
 * manifest in headless Chromium; a call shows the view in a sandboxed frame (an opaque origin of its
 * own, under the frame file's CSP) beside the result, the chart draws one mark per point, and a row
 * action of the table calls the app-only tool through the page, in both eras.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FIXTURE } from '../apps/harness.js';
import { BROWSER_SKIP, type Browser, type DevServer, launchBrowser, startDev } from '../helpers/browser.js';

describe('the playground hosts MCP Apps views', { skip: BROWSER_SKIP }, () => {
  let dev: DevServer;
  let browser: Browser;

  before(async () => {
    [dev, browser] = await Promise.all([startDev(FIXTURE), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await dev?.stop();
  });

  for (const era of ['2025-11-25', '2026-07-28']) {
    test(`${era}: the chart and the table with its action`, async () => {
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(err.message));
      try {
        await page.goto(`${dev.page}?era=${era}`);
        await page
          .getByTestId('tool-item')
          .filter({ hasText: /^monthly\s*~/ })
          .click();
        await page.getByRole('button', { name: 'Call monthly' }).click();
        const frame = page.locator('iframe[title="monthly view"]');
        assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
        const chart = page.frameLocator('iframe[title="monthly view"]');
        await chart.locator('svg .mark').first().waitFor();
        assert.equal(await chart.locator('svg .mark').count(), 4);

        await page
          .getByTestId('tool-item')
          .filter({ hasText: /^orders\s*~/ })
          .click();
        await page.getByRole('button', { name: 'Call orders' }).click();
        const table = page.frameLocator('iframe[title="orders view"]');
        await table.locator('tbody tr').first().waitFor();
        assert.equal(await table.locator('tbody tr').count(), 4, 'one page of four');
        await table.locator('tbody tr').nth(2).getByRole('button', { name: 'Details' }).click();
        await table.locator('section.detail dd').first().waitFor();
        assert.deepEqual(await table.locator('section.detail dd').allTextContents(), ['3', 'Bo', '200']);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }
});
