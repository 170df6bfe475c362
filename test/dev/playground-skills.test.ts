/**
 * The playground's skills (web/skills.tsx, web/markdown.tsx) in a real browser (headless chromium
 * through playwright-core): the Skills list from `skills/list`, a SKILL.md rendered as DOM built from
 * its text (a `<script>` or an `<img onerror>` in it shows as text and never runs), its source, its
 * files, a generated skill, and an edit of the file followed live. Skipped, with the reason, where
 * chromium is missing.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, type Browser, type DevServer, launchBrowser, startDev } from '../helpers/browser.js';
import { tempFiles } from '../helpers/demo.js';

const MANIFEST = `server: { name: skills-playground, version: 1.0.0 }
tools:
  find_order:
    kind: content
    title: Find an order
    description: One order by its id.
    input:
      id: { type: string, description: The order id }
    content: [{ text: "order {{id}}" }]
toolsets:
  orders:
    description: Look orders up.
    tools: [find_order]
skills:
  folders: [./skills]
  fromToolsets: [orders]
tests:
  - name: finds order 7
    call: find_order
    args: { id: "7" }
    expect: { contains: order 7 }
`;

const SKILL = (title: string) => `---
name: triage
description: Triage a support ticket.
---

# ${title}

Read the ticket **first**, then *decide*. Use \`find_order\` for the order.

<script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2">

## Steps

1. Find the order.
2. Write the answer.

- a bullet with [a link](javascript:alert(1))
- another

\`\`\`json
{ "id": "7", "note": "<b>not bold</b>" }
\`\`\`
`;

describe('mcp-run dev: skills in the playground', { skip: BROWSER_SKIP }, () => {
  let files: ReturnType<typeof tempFiles>;
  let dev: DevServer;
  let browser: Browser;

  before(async () => {
    files = tempFiles({
      'mcp.yaml': MANIFEST,
      'skills/triage/SKILL.md': SKILL('Ticket triage'),
      'skills/triage/references/tone.md': 'Be kind.\n',
    });
    [dev, browser] = await Promise.all([startDev(join(files.dir, 'mcp.yaml')), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    assert.equal(await dev?.stop(), 0);
    files?.cleanup();
  });
  afterEach(async () => {
    for (const page of browser.context.pages()) await page.close();
  });

  async function open(era?: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(era ? `${dev.page}?era=${era}` : dev.page);
    return page;
  }
  const pick = (page: Page, name: string) =>
    page
      .getByTestId('skill-item')
      .filter({ hasText: new RegExp(`^${name}`) })
      .click();

  test('lists the skills; a SKILL.md renders as headings, paragraphs, lists and code, its HTML as text', async () => {
    const page = await open();
    await page.getByTestId('skill-item').first().waitFor();
    assert.deepEqual(await page.locator('[data-testid=skill-item] .name').allTextContents(), [
      'triage',
      'orders',
    ]);
    await pick(page, 'triage');
    const md = page.getByTestId('markdown');
    await md.waitFor();
    assert.deepEqual(await md.locator('h3, h4').allTextContents(), ['Ticket triage', 'Steps']);
    assert.equal(await md.locator('strong').textContent(), 'first');
    assert.equal(await md.locator('em').textContent(), 'decide');
    assert.equal(await md.locator('p code').textContent(), 'find_order');
    assert.deepEqual(await md.locator('ol li').allTextContents(), ['Find the order.', 'Write the answer.']);
    assert.equal(await md.locator('ul li').count(), 2);
    assert.equal(await md.locator('pre code').textContent(), '{ "id": "7", "note": "<b>not bold</b>" }');
    // The skill's HTML is text: no element came from it, nothing ran, the link is not a link.
    assert.equal(await md.locator('script, img, b, a').count(), 0);
    assert.match((await md.textContent())!, /<script>window\.__pwned = 1<\/script> <img src=x onerror=/);
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
    assert.match((await md.locator('ul li').first().textContent())!, /a link \(javascript:alert\(1\)\)/);

    // The files, with their sizes; the source view shows the frontmatter too.
    const listed = await page.getByTestId('skill-files').locator('li').allTextContents();
    assert.equal(listed.length, 2);
    assert.match(listed[0]!, /^skill:\/\/triage\/SKILL\.md \d+ bytes · sha256:/);
    assert.match(listed[1]!, /^skill:\/\/triage\/references\/tone\.md 9 bytes/);
    await page.getByRole('button', { name: 'Source' }).click();
    assert.match((await page.getByTestId('skill-source').textContent())!, /^---\nname: triage\n/);
  });

  test('a generated skill renders its tool section and its example (2026-07-28 era too)', async () => {
    const page = await open('2026-07-28');
    await page.getByTestId('skill-item').first().waitFor();
    await pick(page, 'orders');
    const md = page.getByTestId('markdown');
    await md.waitFor();
    assert.deepEqual(await md.locator('h3, h4').allTextContents(), [
      'orders',
      'When to use which tool',
      'find_order',
    ]);
    assert.match((await md.locator('pre code').first().textContent())!, /"id": "7"/);
  });

  test('an edit of the SKILL.md is followed: the view shows the new text', async () => {
    const page = await open();
    await page.getByTestId('skill-item').first().waitFor();
    await pick(page, 'triage');
    await page.getByTestId('markdown').locator('h3').first().waitFor();
    writeFileSync(join(files.dir, 'skills/triage/SKILL.md'), SKILL('Ticket triage, edited'));
    await page.getByTestId('markdown').locator('h3', { hasText: 'Ticket triage, edited' }).waitFor();
  });
});
