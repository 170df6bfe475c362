/**
 * The playground names search mode (docs/big-catalogs.md): a catalog served with
 * `catalog: { mode: search }` shows a badge saying so above its tools, which are the meta-tools and
 * the pinned ones; the page calls search_tools like any tool. A catalog in full shows no badge.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BROWSER_SKIP, type Browser, type DevServer, launchBrowser, startDev } from '../helpers/browser.js';
import { tempFiles } from '../helpers/demo.js';

const manifest = (catalog: string) => `server: { name: search-mode-page, ${catalog} }
tools:
  issue_create: { kind: content, title: Create an issue, description: Opens an issue., content: [{ text: created }] }
  status: { kind: content, description: Says the server is up., content: [{ text: ok }] }
`;

describe('the playground in search mode', { skip: BROWSER_SKIP }, () => {
  const files = tempFiles({
    'search.yaml': manifest('catalog: { mode: search, pin: [status] }'),
    'full.yaml': manifest('version: 1.0.0'),
  });
  let browser: Browser;
  let search: DevServer;
  let full: DevServer;

  before(async () => {
    [search, full, browser] = await Promise.all([
      startDev(join(files.dir, 'search.yaml')),
      startDev(join(files.dir, 'full.yaml')),
      launchBrowser(),
    ]);
  });
  after(async () => {
    await browser?.close();
    assert.equal(await search?.stop(), 0);
    assert.equal(await full?.stop(), 0);
    files.cleanup();
  });

  test('the mode is named, with the meta-tools and the pinned tool listed', async () => {
    const page = await browser.context.newPage();
    await page.goto(search.page);
    assert.deepEqual(await page.locator('[data-testid=tool-item] .name').allTextContents(), [
      'search_tools',
      'browse_tools',
      'describe_tool',
      'call_tool',
      'status',
    ]);
    assert.match((await page.getByTestId('catalog-mode').textContent())!, /search mode.*and 1 pinned/);
    await page.close();
  });

  test('a catalog in full has no badge', async () => {
    const page = await browser.context.newPage();
    await page.goto(full.page);
    await page.locator('[data-testid=tool-item]').first().waitFor();
    assert.equal(await page.getByTestId('catalog-mode').count(), 0);
    await page.close();
  });
});
