/**
 * The built-in views' pages (dist/views/, scripts/bundle-views.mjs) stay within their published
 * budgets (docs/apps.md) and self-contained: one file each, no script or style fetched, the settings
 * marker where catalog/views.ts writes a tool's settings.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { REPO } from '../helpers/demo.js';

/**
 * The budgets docs/apps.md publishes. Measured: view.html 431,266 bytes (120,048 gzipped), most of
 * it ext-apps' App and zod; chart-vega.html 1,232,529 (397,304 gzipped), Vega and Vega-Lite.
 */
const BUDGETS = {
  'view.html': { bytes: 480_000, gzip: 135_000 },
  'chart-vega.html': { bytes: 1_350_000, gzip: 440_000 },
};

for (const [name, budget] of Object.entries(BUDGETS))
  test(`${name} is one self-contained file within its budget`, () => {
    const page = readFileSync(join(REPO, 'dist/views', name), 'utf8');
    const bytes = Buffer.byteLength(page);
    const gzip = gzipSync(page).length;
    assert.ok(bytes <= budget.bytes, `${name} is ${bytes} bytes, over its budget of ${budget.bytes}`);
    assert.ok(gzip <= budget.gzip, `${name} is ${gzip} bytes gzipped, over its budget of ${budget.gzip}`);
    assert.doesNotMatch(page, /<script[^>]*\ssrc=|<link[^>]*\shref=|@import\s/i, 'nothing is fetched');
    assert.equal(page.split('<!--mcp-run:view-config-->').length, 2, 'one settings marker');
    const sizes = JSON.parse(readFileSync(join(REPO, 'dist/views/sizes.json'), 'utf8'));
    assert.deepEqual(sizes[name], { bytes, gzip });
  });
