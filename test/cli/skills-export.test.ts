/**
 * `mcp-run skills export` as a user runs it (the built CLI): one folder per skill holding the bytes
 * the server serves, a second run that changes nothing, a folder that holds something else refused
 * (nothing written) unless --force, and bad usage (an unknown toolset, no toolsets) exiting 2.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const MANIFEST = `server: { name: shop, version: 1.0.0 }
tools:
  find_order:
    kind: content
    title: Find an order
    description: One order by its id.
    input:
      id: { type: string, description: The order id }
    content: [{ text: "order {{id}}" }]
  cancel_order:
    kind: content
    description: Cancels an order.
    annotations: { readOnlyHint: false, destructiveHint: true }
    input:
      id: { type: string }
    content: [{ text: "cancelled {{id}}" }]
toolsets:
  orders:
    description: "Look orders up and cancel them.\\u001b[2J"
    tools: [find_order, cancel_order]
  lookup:
    tools: [find_order]
skills:
  fromToolsets: [orders]
tests:
  - name: finds order 7
    call: find_order
    args: { id: "7" }
    expect: { contains: order 7 }
`;

describe('mcp-run skills export', () => {
  const files = tempFiles({ 'mcp.yaml': MANIFEST });
  after(files.cleanup);
  const manifest = join(files.dir, 'mcp.yaml');
  const out = join(files.dir, 'review');

  /** What the server serves: the SKILL.md's text as `resources/read` answers it (`mcp-run read --raw`). */
  function served(uri: string): string {
    const run = runCli(['read', uri, manifest, '--raw']);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout).contents[0].text;
  }

  test('writes the skills.fromToolsets skills, byte for byte what is served', () => {
    const run = runCli(['skills', 'export', manifest, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const skill = join(out, 'orders', 'SKILL.md');
    assert.equal(run.stdout, `wrote ${skill} (${readFileSync(skill).length} bytes)\n`);
    assert.deepEqual(readdirSync(out), ['orders']);
    assert.equal(readFileSync(skill, 'utf8'), served('skill://orders/SKILL.md'));
    assert.match(readFileSync(skill, 'utf8'), /^---\nname: "orders"\n/);
    assert.match(readFileSync(skill, 'utf8'), /Look orders up and cancel them\.U\+001B\[2J/);
  });

  test('a second run changes nothing', () => {
    const run = runCli(['skills', 'export', manifest, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `unchanged ${join(out, 'orders')}\n`);
  });

  test('--toolset exports that toolset; a folder that holds something else is refused, then replaced with --force', () => {
    const first = runCli(['skills', 'export', '-m', manifest, '--out', out, '--toolset', 'lookup']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(readdirSync(out).sort(), ['lookup', 'orders']);
    const skill = join(out, 'orders', 'SKILL.md');
    const original = readFileSync(skill, 'utf8');
    writeFileSync(skill, `${original}my notes\n`);
    writeFileSync(join(out, 'orders', 'extra.md'), 'stray');
    writeFileSync(join(out, 'lookup', 'SKILL.md'), 'edited');

    const refused = runCli([
      'skills',
      'export',
      manifest,
      '--out',
      out,
      '--toolset',
      'orders',
      '--toolset',
      'lookup',
    ]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /review\/lookup exists and holds something else than the skill "lookup"/);
    assert.match(refused.stderr, /review\/orders exists and holds something else than the skill "orders"/);
    assert.equal(readFileSync(skill, 'utf8'), `${original}my notes\n`, 'nothing was written');

    const forced = runCli(['skills', 'export', manifest, '--out', out, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(skill, 'utf8'), original);
    assert.ok(!existsSync(join(out, 'orders', 'extra.md')), 'the folder holds exactly the skill');
    assert.equal(readFileSync(join(out, 'lookup', 'SKILL.md'), 'utf8'), 'edited', 'only the chosen skills');
  });

  test('bad usage exits 2 (an unknown toolset, a manifest without toolsets, no --out); a manifest error 1', () => {
    const unknown = runCli(['skills', 'export', manifest, '--out', out, '--toolset', 'order']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no toolset is named "order" \(did you mean "orders"\?\)/);
    const bare = tempFiles({
      'mcp.yaml': 'tools:\n  one: { kind: content, description: One., content: [{ text: one }] }\n',
    });
    try {
      const none = runCli(['skills', 'export', join(bare.dir, 'mcp.yaml'), '--out', out]);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /the manifest has no toolsets/);
    } finally {
      bare.cleanup();
    }
    const broken = tempFiles({
      'mcp.yaml': `${MANIFEST.replace('fromToolsets: [orders]', 'fromToolsets: [ordres]')}`,
    });
    try {
      const run = runCli(['skills', 'export', join(broken.dir, 'mcp.yaml'), '--out', out]);
      assert.equal(run.code, 1, 'a manifest with errors exits 1');
      assert.match(run.stderr, /error\[TOOLSET_UNKNOWN\] .*mcp\.yaml:\d+:\d+ skills\.fromToolsets\[0\]/);
      assert.match(run.stderr, /did you mean "orders"/);
    } finally {
      broken.cleanup();
    }
    const noOut = runCli(['skills', 'export', manifest]);
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /--out <dir>/);
  });

  test('what it prints is escaped: a folder name with a control character', () => {
    const odd = join(files.dir, 'odd\u001b[31m');
    const run = runCli(['skills', 'export', manifest, '--out', odd]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes('odd\\x1b[31m/orders/SKILL.md'), run.stdout);
    assert.ok(!run.stdout.includes('\u001b'));
  });
});
