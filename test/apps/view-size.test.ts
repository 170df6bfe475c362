/**
 * The built-in views' page (dist/views/view.html, scripts/bundle-views.mjs) stays within its
 * published budget (docs/apps.md) and self-contained: one file, no script or style fetched, the
 * settings marker where catalog/views.ts writes a tool's settings.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { REPO } from '../helpers/demo.js';

/** The budget docs/apps.md publishes: measured 431 KB (120 KB gzipped), most of it ext-apps' App and zod. */
const BUDGET = { bytes: 480_000, gzip: 135_000 };

test('the views page is one self-contained file within its budget', () => {
  const page = readFileSync(join(REPO, 'dist/views/view.html'), 'utf8');
  const bytes = Buffer.byteLength(page);
  const gzip = gzipSync(page).length;
  assert.ok(bytes <= BUDGET.bytes, `view.html is ${bytes} bytes, over its budget of ${BUDGET.bytes}`);
  assert.ok(gzip <= BUDGET.gzip, `view.html is ${gzip} bytes gzipped, over its budget of ${BUDGET.gzip}`);
  assert.doesNotMatch(page, /<script[^>]*\ssrc=|<link[^>]*\shref=|@import\s/i, 'nothing is fetched');
  assert.equal(page.split('<!--mcp-run:view-config-->').length, 2, 'one settings marker');
  const sizes = JSON.parse(readFileSync(join(REPO, 'dist/views/sizes.json'), 'utf8'));
  assert.deepEqual(sizes['view.html'], { bytes, gzip });
});
