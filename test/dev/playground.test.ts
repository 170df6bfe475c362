/**
 * `mcp-run dev`'s playground in a real browser (headless chromium through playwright-core): the
 * page is a client of the server's own /mcp. One browser and one dev server for the file; each test
 * opens its own page. Skipped, with the reason, where chromium is missing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { isLoopbackPeer } from '../../src/dev/playground.js';
import {
  BROWSER_SKIP,
  type Browser,
  CHROMIUM,
  CHROMIUM_ARGS,
  type DevServer,
  launchBrowser,
  startDev,
} from '../helpers/browser.js';
import { CLI, demoCopy, REPO, tempFiles } from '../helpers/demo.js';
import { alive, treeOf } from '../helpers/process-tree.js';
import { spawnHttpCli } from '../transports/http-harness.js';

const PROGRESS = `{ pattern: '^(?<progress>\\d+)/(?<total>\\d+) (?<message>.*)$' }`;
const MANIFEST = `server: { name: playground-test, version: 1.0.0 }
tools:
  place_order:
    kind: content
    description: Echoes an order as structured content.
    input:
      customer:
        type: object
        properties:
          name: { type: string }
          email: { type: string }
        required: [name]
      items:
        type: array
        items:
          type: object
          properties:
            sku: { type: string }
            qty: { type: integer, default: 1 }
          required: [sku]
      payment:
        oneOf:
          - { type: object, title: card, properties: { card: { type: string } }, required: [card], additionalProperties: false }
          - { type: object, title: invoice, properties: { po: { type: string } }, required: [po], additionalProperties: false }
      speed: { type: string, enum: [standard, express], default: standard }
    structured: { customer: "{{customer}}", items: "{{items}}", payment: "{{payment}}", speed: "{{speed}}" }
  broken_tool:
    kind: content
    description: Always fails.
    isError: true
    content: [{ text: "the upstream said no" }]
  delete_thing:
    kind: content
    description: Deletes a thing after a confirm.
    input: { id: { type: integer } }
    confirm: "Delete thing {{id}}?"
    content: [{ text: "deleted {{id}}" }]
  count_slowly:
    kind: shell
    description: Counts to 8, one step per 150 ms.
    command: [sh, -c, 'for i in 1 2 3 4 5 6 7 8; do echo "$i/8 step $i"; sleep 0.15; done', count]
    progress: ${PROGRESS}
  wait_long:
    kind: shell
    description: Waits 30 s, to be cancelled.
    input: { tag: { type: string } }
    command: [sh, -c, 'echo "1/100 waiting"; sleep 30', "{{tag}}"]
    progress: ${PROGRESS}
    timeoutMs: 60000
  summarize:
    kind: content
    description: Asks the client's model for a summary.
    input: { text: { type: string } }
    content: [{ text: "{{text}}" }]
    sample: { prompt: "Summarize {{result}}", maxTokens: 40 }
  where_am_i:
    kind: shell
    description: Names the client's first root, and logs.
    roots: true
    command: [sh, -c, 'echo "root is $0"; echo "a log line" >&2', "{{root}}"]
  show_logo:
    kind: content
    description: Text, an image and a resource link.
    content:
      - text: here it is
      - image: { path: ./logo.png }
      - resourceLink: { uri: "test://notes", name: notes }
resources:
  notes: { kind: text, uri: "test://notes", text: "the notes", description: Some notes. }
  note: { kind: text, uri: "test://notes/{id}", text: "note {{id}}", description: One note. }
prompts:
  greet:
    description: Greets someone.
    arguments: { name: { description: Who, required: true } }
    messages: [{ text: "Hello, {{name}}!" }]
`;
const shell = (script: string) => spawnSync('sh', ['-c', script], { encoding: 'utf8', timeout: 30_000 });
/** WCAG relative luminance of `rgb(r, g, b)`. */
function luminance(rgb: string): number {
  const [r, g, b] = rgb
    .match(/\d+/g)!
    .slice(0, 3)
    .map((c) => {
      const v = Number(c) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};
/** A 2×1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAADklEQVR4nGP4z8AAQv8BD/kD/YURmXYAAAAASUVORK5CYII=';
const TOOLS = [
  'place_order',
  'broken_tool',
  'delete_thing',
  'count_slowly',
  'wait_long',
  'summarize',
  'where_am_i',
  'show_logo',
];

describe('mcp-run dev: the playground in a browser', { skip: BROWSER_SKIP }, () => {
  let files: ReturnType<typeof tempFiles>;
  let manifest: string;
  let dev: DevServer;
  let browser: Browser;

  before(async () => {
    files = tempFiles({ 'mcp.yaml': MANIFEST });
    manifest = join(files.dir, 'mcp.yaml');
    writeFileSync(join(files.dir, 'logo.png'), Buffer.from(PNG, 'base64'));
    [dev, browser] = await Promise.all([startDev(manifest), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    assert.equal(await dev?.stop(), 0);
    files?.cleanup();
  });

  // A failed test leaves no page behind it for the next.
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
      .getByTestId('tool-item')
      .filter({ hasText: new RegExp(`^${name}`) })
      .click();
  /** Calls wait_long tagged `tag`, cancels it once it runs, and waits for its processes to end. */
  async function cancelEndsProcess(page: Page, tag: string): Promise<void> {
    await pick(page, 'wait_long');
    await page.locator('#f-wait_long_tag').fill(tag);
    await page.getByRole('button', { name: 'Call wait_long' }).click();
    await page.getByTestId('progress').waitFor();
    const tree = treeOf(tag);
    assert.ok(tree.length > 0, 'the process runs');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('cancelled').waitFor();
    for (let i = 0; i < 100 && tree.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(tree.filter(alive), [], 'every process of the call ended');
  }
  /** The arguments of the newest tools/call in the trace. */
  async function lastCallArguments(page: Page): Promise<unknown> {
    const text = await page
      .locator('[data-testid=trace-entry][data-method="tools/call"] pre')
      .first()
      .textContent();
    return JSON.parse(text!).params.arguments;
  }

  test('the first paint lists every tool, with the token estimate, before any interaction', async () => {
    // chromium --dump-dom, as a person would check it: the DOM at the load event names every tool.
    const profile = mkdtempSync(join(tmpdir(), 'mcp-run-chromium-'));
    try {
      const dump = spawnSync(
        CHROMIUM,
        [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, '--dump-dom', dev.page],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      for (const tool of TOOLS)
        assert.ok(
          dump.stdout.includes(`>${tool}<`),
          `${tool} in the dumped DOM:\n${dump.stdout.slice(0, 400)}`,
        );
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
    const page = await open();
    assert.deepEqual(await page.locator('[data-testid=tool-item] .name').allTextContents(), TOOLS);
    assert.match((await page.getByTestId('tools-tokens').textContent())!, /~\d+ tokens in tools\/list/);
    await page.getByLabel('Search the catalog').fill('slow');
    assert.deepEqual(await page.locator('[data-testid=tool-item] .name').allTextContents(), ['count_slowly']);
    await page.close();
  });

  test('a form for nested objects, arrays and oneOf checks before sending and sends the right arguments', async () => {
    const page = await open();
    await pick(page, 'place_order');
    await page.getByRole('button', { name: 'Call place_order' }).click();
    // Nothing is sent while a required field is empty: the messages sit under the fields.
    await page.getByTestId('form-errors').waitFor();
    assert.match((await page.getByTestId('form-errors').textContent())!, /\/customer\/name required/);
    assert.equal(await page.locator('[data-testid=trace-entry][data-method="tools/call"]').count(), 0);

    await page.locator('#f-place_order_customer_name').fill('Ada');
    await page.getByRole('button', { name: 'add an item to items' }).click();
    await page.locator('#f-place_order_items_0_sku').fill('B-1');
    await page.locator('#f-place_order_payment_variant').selectOption({ label: 'invoice' });
    await page.locator('#f-place_order_payment_po').fill('PO-9');
    await page.locator('#f-place_order_speed').selectOption({ label: 'express' });
    await page.getByRole('button', { name: 'Call place_order' }).click();
    await page.getByTestId('structured-content').waitFor();
    const expected = {
      customer: { name: 'Ada' },
      items: [{ sku: 'B-1', qty: 1 }],
      payment: { po: 'PO-9' },
      speed: 'express',
    };
    assert.deepEqual(await lastCallArguments(page), expected);
    const tree = (await page.getByTestId('structured-content').textContent())!;
    for (const part of ['"Ada"', '"B-1"', '"PO-9"', '"express"'])
      assert.ok(tree.includes(part), `${part} in ${tree}`);

    // The trace entry of the call copies as a command and as curl.
    const entry = page.locator('[data-testid=trace-entry][data-method="tools/call"]').first();
    await entry.locator('summary').click();
    await entry.getByRole('button', { name: 'Copy as mcp-run call' }).click();
    const command = (await page.getByTestId('copied').textContent())!;
    assert.ok(command.startsWith(`mcp-run call 'place_order' '${manifest}' --json '`), command);
    // Both copies run as they are, in a shell, and give the same result.
    const bin = join(files.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'mcp-run'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, {
      mode: 0o755,
    });
    const ran = shell(`PATH="${bin}:$PATH" ${command} --raw`);
    assert.equal(ran.status, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout).structuredContent, expected);
    await entry.getByRole('button', { name: 'Copy as curl' }).click();
    const curl = (await page.getByTestId('copied').textContent())!;
    assert.match(curl, /^curl -sS -N -X POST 'http:\/\/127\.0\.0\.1:\d+\/mcp' /);
    assert.match(curl, /-H 'Mcp-Session-Id: [^']+'/);
    const curled = shell(curl);
    assert.equal(curled.status, 0, curled.stderr);
    const answer = curled.stdout.includes('data: ')
      ? JSON.parse(
          curled.stdout
            .split('\n')
            .findLast((l) => l.startsWith('data: {'))!
            .slice(6),
        )
      : JSON.parse(curled.stdout);
    assert.deepEqual(answer.result.structuredContent, expected);
    await page.close();
  });

  test('an isError result is shown apart from a good one', async () => {
    const page = await open();
    await pick(page, 'broken_tool');
    await page.getByRole('button', { name: 'Call broken_tool' }).click();
    const result = page.getByTestId('tool-result');
    await result.waitFor();
    assert.equal(await result.getAttribute('class'), 'result is-error');
    assert.match((await result.textContent())!, /Error result \(isError: true\).*the upstream said no/);
    await page.close();
  });

  test('a confirm answered in the page lets the call go on; a declined one stops it', async () => {
    const page = await open();
    await pick(page, 'delete_thing');
    await page.locator('#f-delete_thing_id').fill('7');
    await page.getByRole('button', { name: 'Call delete_thing' }).click();
    const dialog = page.getByTestId('ask-dialog');
    await dialog.waitFor();
    assert.match((await dialog.textContent())!, /Delete thing 7\?/);
    await dialog.getByRole('button', { name: 'Accept' }).click();
    await page.getByTestId('tool-result').filter({ hasText: 'deleted 7' }).waitFor();

    await page.locator('#f-delete_thing_id').fill('8');
    await page.getByRole('button', { name: 'Call delete_thing' }).click();
    await dialog.getByRole('button', { name: 'Decline' }).click();
    await page
      .getByTestId('tool-result')
      .filter({ hasText: /declined/ })
      .waitFor();
    assert.doesNotMatch((await page.getByTestId('tool-result').textContent())!, /deleted 8/);
    await page.close();
  });

  test('sampling and roots are dialogs; logs stream in; resources, templates and prompts are read and rendered', async () => {
    const page = await open();
    await pick(page, 'summarize');
    await page.locator('#f-summarize_text').fill('a long text');
    await page.getByRole('button', { name: 'Call summarize' }).click();
    const dialog = page.getByTestId('ask-dialog');
    assert.equal(await dialog.getAttribute('data-method'), 'sampling/createMessage');
    assert.match((await dialog.textContent())!, /Summarize a long text/);
    await dialog.getByLabel(/Reply as the model/).fill('short');
    await dialog.getByRole('button', { name: 'Send reply' }).click();
    await page.getByTestId('tool-result').filter({ hasText: 'short' }).waitFor();

    await pick(page, 'where_am_i');
    await page.getByRole('button', { name: 'Call where_am_i' }).click();
    assert.equal(await dialog.getAttribute('data-method'), 'roots/list');
    // The manifest's folder is offered; a root of the user's choosing goes back instead.
    assert.equal(await dialog.getByLabel(/Roots/).inputValue(), `file://${files.dir}`);
    await dialog.getByLabel(/Roots/).fill(`file://${tmpdir()}`);
    await dialog.getByRole('button', { name: 'Send roots' }).click();
    await page
      .getByTestId('tool-result')
      .filter({ hasText: `root is ${tmpdir()}` })
      .waitFor();
    await page.getByRole('tab', { name: /Logs/ }).click();
    await page.getByTestId('logs').filter({ hasText: 'a log line' }).waitFor();

    // An image shows as an image; a resource link reads its resource.
    await pick(page, 'show_logo');
    await page.getByRole('button', { name: 'Call show_logo' }).click();
    const image = page.locator('[data-testid=tool-result] img.content-image');
    await image.waitFor();
    assert.equal(await image.evaluate((img: any) => img.naturalWidth), 2);
    await page.getByTestId('tool-result').getByRole('button', { name: 'notes' }).click();
    await page.locator('.content-text').filter({ hasText: 'the notes' }).waitFor();
    await page.getByTestId('prompt-item').click();
    await page.getByTestId('resource-item').filter({ hasText: 'notes' }).click();
    await page.getByRole('button', { name: 'Read' }).click();
    await page.locator('.content-text').filter({ hasText: 'the notes' }).waitFor();
    await page.getByTestId('template-item').click();
    await page.getByLabel('id').fill('42');
    await page.getByRole('button', { name: 'Read' }).click();
    await page.locator('.content-text').filter({ hasText: 'note 42' }).waitFor();
    await page.getByTestId('prompt-item').click();
    await page.getByRole('button', { name: 'Get greet' }).click();
    await page.locator('.field-error').filter({ hasText: 'required' }).waitFor();
    await page.getByLabel(/^name/).fill('Ada');
    await page.getByRole('button', { name: 'Get greet' }).click();
    await page.getByTestId('prompt-result').filter({ hasText: 'Hello, Ada!' }).waitFor();
    await page.close();
  });

  test('a long call moves its progress bar, and its result arrives', async () => {
    const page = await open();
    await pick(page, 'count_slowly');
    await page.getByRole('button', { name: 'Call count_slowly' }).click();
    const seen = new Set<number>();
    const bar = page.getByTestId('progress');
    for (let i = 0; i < 200 && seen.size < 3; i++) {
      const value = await bar.getAttribute('value', { timeout: 5000 }).catch(() => null);
      if (value !== null) seen.add(Number(value));
      await page.waitForTimeout(20);
    }
    assert.ok(seen.size >= 2, `the bar moved: ${[...seen]}`);
    assert.equal(await bar.getAttribute('max').catch(() => '8'), '8');
    await page.getByTestId('tool-result').filter({ hasText: '8/8 step 8' }).waitFor();
    await page.close();
  });

  test("cancel in the page ends the shell tool's process", async () => {
    const page = await open();
    await cancelEndsProcess(page, `mcp-run-dev-cancel-${process.pid}`);
    assert.ok(
      (await page.locator('[data-testid=trace-entry][data-method="notifications/cancelled"]').count()) > 0,
      'the 2025 era says notifications/cancelled',
    );
    await page.close();
  });

  test('an edit adds a tool live; a broken edit shows its errors with the line while the old tools work', async () => {
    const page = await open();
    await page.getByTestId('tool-item').first().waitFor();
    const original = readFileSync(manifest, 'utf8');
    try {
      const started = Date.now();
      const withTool = (text: string, entry: string) => text.replace('\ntools:\n', `\ntools:\n${entry}`);
      const added = withTool(
        original,
        '  brand_new:\n    kind: content\n    description: Added live.\n    content: [{ text: fresh }]\n',
      );
      writeFileSync(manifest, added);
      await page.getByTestId('tool-item').filter({ hasText: 'brand_new' }).waitFor({ timeout: 5000 });
      const ms = Date.now() - started;
      await page
        .getByTestId('reload-status')
        .filter({ hasText: /\+1 tool/ })
        .waitFor();
      assert.match((await page.getByTestId('reload-status').textContent())!, /\+brand_new/);
      process.stderr.write(`# the new tool was on the page ${ms} ms after the edit\n`);

      // A kind that does not exist, on line 4 (just below `tools:`), beside the tool added above.
      writeFileSync(manifest, withTool(added, '  bad_tool:\n    kind: no_such_kind\n'));
      const errors = page.getByTestId('reload-errors');
      await errors.waitFor();
      const text = (await errors.textContent())!;
      assert.ok(text.includes('mcp.yaml:4:'), `the error names line 4: ${text}`);
      assert.match(text, /no_such_kind/);
      assert.match(text, />\s*\d+ \|\s+kind: no_such_kind/, 'the code frame');
      // The last good catalog still serves: brand_new is listed and answers.
      await pick(page, 'brand_new');
      await page.getByRole('button', { name: 'Call brand_new' }).click();
      await page.getByTestId('tool-result').filter({ hasText: 'fresh' }).waitFor();
    } finally {
      writeFileSync(manifest, original);
    }
    await page
      .getByTestId('reload-status')
      .filter({ hasText: /the errors are fixed/ })
      .waitFor();
    await page.getByTestId('tool-item').filter({ hasText: 'brand_new' }).waitFor({ state: 'detached' });
    await page.close();
  });

  // The picture in docs/dev.md is taken only when asked (`npm run screenshots`): a test run leaves the tree clean.
  const SCREENSHOT =
    process.env.MCP_RUN_WRITE_SCREENSHOTS === '1' ? join(REPO, 'docs/dev-playground.png') : undefined;
  test('the demo manifest, readable in both schemes (and screenshotted with MCP_RUN_WRITE_SCREENSHOTS=1)', async () => {
    const copy = demoCopy();
    const demo = await startDev(copy.manifest);
    try {
      const page = await browser.context.newPage();
      await page.goto(demo.page);
      await pick(page, 'find_orders');
      await page.locator('#f-find_orders_email').fill('ada@example.com');
      await page.getByRole('button', { name: 'Call find_orders' }).click();
      await page.getByTestId('structured-content').waitFor();
      // Keyboard: the search field is one key away, and Tab reaches the catalog.
      await page.keyboard.press('Escape');
      await page.locator('body').press('/');
      assert.equal(await page.evaluate('document.activeElement?.id'), 'search');
      if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT });
      // Readable in both schemes: the text keeps a contrast of at least 7:1 on its background.
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const [fg, bg] = (await page.evaluate(
          '[getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor]',
        )) as [string, string];
        assert.ok(contrast(fg, bg) >= 7, `${scheme}: ${fg} on ${bg}`);
        if (scheme === 'dark') assert.ok(luminance(bg) < 0.05, `a dark background in dark mode: ${bg}`);
      }
      await page.close();
    } finally {
      assert.equal(await demo.stop(), 0);
      copy.cleanup();
    }
  });

  test('the era switch speaks 2026-07-28 (envelope, listen, input_required) and back 2025-11-25', async () => {
    const page = await open('2025-11-25');
    const methods = async () =>
      page
        .locator('[data-testid=trace-entry]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-method')));
    assert.ok((await methods()).includes('initialize'));
    await page.getByLabel('Protocol era').selectOption('2026-07-28');
    await page.getByTestId('tool-item').filter({ hasText: 'delete_thing' }).waitFor();
    await page.locator('[data-testid=trace-entry][data-method="subscriptions/listen"]').first().waitFor();
    const sent = await page
      .locator('[data-testid=trace-entry].out pre')
      .evaluateAll((els) => els.map((e) => JSON.parse(e.textContent!)));
    const modern = sent.filter(
      (m) => m.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === '2026-07-28',
    );
    assert.ok(modern.some((m) => m.method === 'server/discover'));
    assert.ok(modern.some((m) => m.method === 'tools/list'));

    // Live reload in 2026 comes over the listen stream.
    const original = readFileSync(manifest, 'utf8');
    try {
      writeFileSync(
        manifest,
        original.replace(
          '\ntools:\n',
          '\ntools:\n  modern_new: { kind: content, description: New., content: [{ text: hi }] }\n',
        ),
      );
      await page.getByTestId('tool-item').filter({ hasText: 'modern_new' }).waitFor();
      const listed = page.locator(
        '[data-testid=trace-entry][data-method="notifications/tools/list_changed"]',
      );
      assert.match((await listed.first().textContent())!, /listen stream/);
    } finally {
      writeFileSync(manifest, original);
    }
    await page.getByTestId('tool-item').filter({ hasText: 'modern_new' }).waitFor({ state: 'detached' });

    // A confirm in 2026 is an input_required result, answered on the retry.
    await pick(page, 'delete_thing');
    await page.locator('#f-delete_thing_id').fill('9');
    await page.getByRole('button', { name: 'Call delete_thing' }).click();
    await page.getByTestId('ask-dialog').getByRole('button', { name: 'Accept' }).click();
    await page.getByTestId('tool-result').filter({ hasText: 'deleted 9' }).waitFor();
    const received = await page
      .locator('[data-testid=trace-entry].in pre')
      .evaluateAll((els) => els.map((e) => JSON.parse(e.textContent!)));
    assert.ok(received.some((m) => m.result?.resultType === 'input_required'));

    // Cancel in 2026 closes the call's response stream: the process ends all the same.
    await cancelEndsProcess(page, `mcp-run-dev-cancel-2026-${process.pid}`);
    assert.equal(
      await page.locator('[data-testid=trace-entry][data-method="notifications/cancelled"]').count(),
      0,
    );

    // The choice is kept across a reload of the page, and switching back opens a 2025 session.
    await page.reload();
    assert.equal(await page.getByLabel('Protocol era').inputValue(), '2026-07-28');
    await page.getByLabel('Protocol era').selectOption('2025-11-25');
    await page.locator('[data-testid=trace-entry][data-method="initialize"]').first().waitFor();
    await page.getByTestId('tool-item').filter({ hasText: 'delete_thing' }).waitFor();
    await page.close();
  });
});

describe('mcp-run dev: what is served, and to whom', () => {
  test('the plain command serves no page; dev serves it only to its own Host and Origin', async () => {
    const copy = demoCopy();
    try {
      const plain = await spawnHttpCli([copy.manifest, '--no-watch']);
      try {
        const origin = new URL(plain.url).origin;
        for (const path of ['/', '/_dev/app.js', '/_dev/app.css', '/_dev/events'])
          assert.equal((await fetch(`${origin}${path}`)).status, 404, `${path} on the plain command`);
      } finally {
        assert.equal(await plain.stop(), 0);
      }
      const dev = await startDev(copy.manifest);
      try {
        const page = await fetch(dev.page);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type')!, /^text\/html/);
        assert.match(page.headers.get('content-security-policy')!, /default-src 'self'/);
        const html = await page.text();
        // Offline: every script and style the page names is its own.
        for (const [, url] of html.matchAll(/(?:src|href)="([^"]+)"/g)) assert.match(url!, /^\/_dev\//);
        assert.equal((await fetch(new URL('/_dev/app.js', dev.page))).status, 200);
        const foreign = await fetch(dev.page, { headers: { Origin: 'https://evil.example' } });
        assert.equal(foreign.status, 403);
        // fetch cannot set Host: node:http can, as a DNS-rebinding page's browser would send it.
        const rebound = await new Promise<number>((resolve, reject) =>
          get(new URL('/_dev/events', dev.page), { headers: { Host: 'evil.example' } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          }).on('error', reject),
        );
        assert.equal(rebound, 403);
        assert.equal((await fetch(dev.page, { method: 'POST' })).status, 405);
      } finally {
        assert.equal(await dev.stop(), 0);
      }
    } finally {
      copy.cleanup();
    }
  });
});

describe('the dev event stream', () => {
  test('is answered to loopback peers only: it names the manifest and shows its code frames', () => {
    for (const address of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1'])
      assert.equal(isLoopbackPeer(address), true, address);
    for (const address of [
      '10.0.0.7',
      '192.168.1.2',
      '::ffff:10.0.0.7',
      'fe80::1',
      '127.0.0.1.evil',
      undefined,
    ])
      assert.equal(isLoopbackPeer(address), false, String(address));
  });
});
