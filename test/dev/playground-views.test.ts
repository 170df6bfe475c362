/**
 * The playground hosts a tool's MCP Apps view as a real host does: `mcp-run dev` on the apps test
 * manifest in headless Chromium; a call shows the view in a sandboxed frame (an opaque origin of its
 * own, under the frame file's CSP) beside the result, the chart draws one mark per point, and a row
 * action of the table calls the app-only tool through the page, in both eras.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FIXTURE } from '../apps/harness.js';
import { BROWSER_SKIP, type Browser, type DevServer, launchBrowser, startDev } from '../helpers/browser.js';

describe('the playground hosts MCP Apps views', { skip: BROWSER_SKIP }, () => {
  let dev: DevServer;
  let browser: Browser;
  // A copy: the last test edits the manifest.
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-dev-views-'));
  const manifest = join(dir, 'mcp.yaml');

  before(async () => {
    cpSync(dirname(FIXTURE), dir, { recursive: true });
    [dev, browser] = await Promise.all([startDev(manifest), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an edit of the view in the manifest draws it again', async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(dev.page);
      await page
        .getByTestId('tool-item')
        .filter({ hasText: /^monthly\s*~/ })
        .click();
      await page.getByRole('button', { name: 'Call monthly' }).click();
      const chart = page.frameLocator('iframe[title="monthly view"]');
      await chart.locator('svg[data-type="bar"]').waitFor();
      const text = readFileSync(manifest, 'utf8');
      writeFileSync(
        manifest,
        text.replace('ui: { view: chart, type: bar,', 'ui: { view: chart, type: line,'),
      );
      await chart.locator('svg[data-type="line"]').waitFor();
      assert.equal(await chart.locator('svg circle.mark').count(), 4);
    } finally {
      await page.close();
    }
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
