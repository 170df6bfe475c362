/**
 * The playground's finer points in a real browser (headless chromium through playwright-core): a
 * prompt argument's values as a select, long URIs that stay readable, and a "reloaded" badge only
 * for a reload the page saw. A dev server of its own: the reload test edits its manifest.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, type Browser, type DevServer, launchBrowser, startDev } from '../helpers/browser.js';
import { tempFiles } from '../helpers/demo.js';

/** Longer than the catalog column and the detail pane are wide, with a segment no line may break. */
const LONG_URI = `test://archive/${'one_long_segment_without_a_place_to_break_'.repeat(7)}/{section}/{id}`;
const MANIFEST = `server: { name: playground-polish, version: 1.0.0 }
tools:
  hello: { kind: content, description: Says hello., content: [{ text: hello }] }
resources:
  deep_note:
    kind: text
    uri: "${LONG_URI}"
    text: "section {{section}}, note {{id}}"
    description: A note under a long URI.
prompts:
  review:
    description: Reviews a topic in a tone.
    arguments:
      tone: { description: How, required: true, enum: [brief, detailed] }
      topic: { description: What, complete: [books, music] }
      reader: { description: For whom }
    messages: [{ text: "A {{tone}} review of {{topic}} for {{reader}}." }]
`;

describe('mcp-run dev: the playground polish', { skip: BROWSER_SKIP }, () => {
  let files: ReturnType<typeof tempFiles>;
  let manifest: string;
  let dev: DevServer;
  let browser: Browser;

  before(async () => {
    files = tempFiles({ 'mcp.yaml': MANIFEST });
    manifest = join(files.dir, 'mcp.yaml');
    [dev, browser] = await Promise.all([startDev(manifest), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    assert.equal(await dev?.stop(), 0);
    files?.cleanup();
  });
  afterEach(async () => {
    for (const page of browser.context.pages()) await page.close();
  });
  async function open(): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(dev.page);
    return page;
  }
  /** The page has had the dev event stream's hello: the overview names the manifest. */
  const connected = (page: Page) => page.getByText(`Manifest: ${manifest}`, { exact: false }).waitFor();

  test("a prompt argument's offered values are a select, and the chosen one is sent", async () => {
    const page = await open();
    await page.getByTestId('prompt-item').filter({ hasText: 'review' }).click();
    // `enum`: a select of exactly its values (and a way out for a value of one's own).
    const tone = page.locator('select#pa-tone');
    await tone.waitFor();
    assert.deepEqual(await tone.locator('option').allTextContents(), [
      'choose…',
      'brief',
      'detailed',
      'other value…',
    ]);
    await tone.selectOption('detailed');
    // `complete` only suggests: "other value…" takes a value of the author's own.
    const topic = page.locator('select#pa-topic');
    assert.deepEqual(await topic.locator('option').allTextContents(), [
      '(none)',
      'books',
      'music',
      'other value…',
    ]);
    await topic.selectOption({ label: 'other value…' });
    await page.locator('#pa-topic-other').fill('films');
    // Nothing offered: a text field.
    assert.equal(await page.locator('#pa-reader').evaluate((e) => e.tagName), 'INPUT');
    await page.locator('#pa-reader').fill('Ada');
    await page.getByRole('button', { name: 'Get review' }).click();
    await page
      .getByTestId('prompt-result')
      .filter({ hasText: 'A detailed review of films for Ada.' })
      .waitFor();
    const sent = await page
      .locator('[data-testid=trace-entry][data-method="prompts/get"] pre')
      .first()
      .textContent();
    assert.deepEqual(JSON.parse(sent!).params.arguments, { tone: 'detailed', topic: 'films', reader: 'Ada' });
  });

  test('a long template URI is readable whole: in the catalog (wrapped, and on hover) and in its view', async () => {
    const page = await open();
    const item = page.getByTestId('template-item');
    assert.equal(await item.getAttribute('title'), LONG_URI);
    assert.equal(await item.locator('.name').textContent(), LONG_URI);
    // Wrapped: neither the item nor the catalog column is wider than its box.
    const overflows = (selector: string) =>
      page.locator(selector).evaluate((e) => e.scrollWidth > e.clientWidth + 1);
    assert.equal(await overflows('[data-testid=template-item]'), false, 'the item holds its URI');
    assert.equal(await overflows('nav'), false, 'the catalog column does not scroll sideways');
    await item.click();
    await page.locator('main code.uri').first().waitFor();
    assert.equal(await page.locator('main code.uri').first().textContent(), LONG_URI);
    assert.equal(await overflows('main'), false, 'the view does not scroll sideways');
  });

  test('the "reloaded" badge shows for a reload the page saw, never for one before it opened', async () => {
    const original = readFileSync(manifest, 'utf8');
    const withTool = (text: string, name: string) =>
      text.replace(
        '\ntools:\n',
        `\ntools:\n  ${name}: { kind: content, description: New., content: [{ text: hi }] }\n`,
      );
    try {
      const first = await open();
      await connected(first);
      const badge = first.getByTestId('reload-status');
      assert.equal(await badge.textContent(), 'watching mcp.yaml', 'nothing reloaded yet');

      // An edit the page sees.
      writeFileSync(manifest, withTool(original, 'seen_tool'));
      await badge.filter({ hasText: /reloaded: .*\+seen_tool/ }).waitFor();

      // A page opened after that reload: the reload is not news to it.
      const second = await open();
      await connected(second);
      await second.getByTestId('tool-item').filter({ hasText: 'seen_tool' }).waitFor();
      assert.equal(await second.getByTestId('reload-status').textContent(), 'watching mcp.yaml');

      // Its own next edit it does see.
      writeFileSync(manifest, withTool(withTool(original, 'seen_tool'), 'later_tool'));
      await second
        .getByTestId('reload-status')
        .filter({ hasText: /reloaded: .*\+later_tool/ })
        .waitFor();

      // A broken edit before a page opens still holds: that page shows its errors.
      writeFileSync(manifest, original.replace('\ntools:\n', '\ntools:\n  broken: { kind: no_such_kind }\n'));
      await second.getByTestId('reload-errors').waitFor();
      const third = await open();
      await connected(third);
      assert.match((await third.getByTestId('reload-errors').textContent())!, /no_such_kind/);
    } finally {
      writeFileSync(manifest, original);
    }
  });
});
