/**
 * ajv, which checks a tool's arguments, loads in the quiet after start (serve.ts,
 * `preloadValidation`), so a client's first tools/call does not wait ~50 ms for it; a manifest with
 * no tools never loads it. A real `mcp-run` process serves on stdio, answers `initialize`, and is
 * left idle (no call is made); a preload records every package it requires.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { CLI, tempFiles } from '../helpers/demo.js';
import { GREET_MANIFEST, REQUIRE_LOG_PRELOAD } from '../helpers/loaded-modules.js';

const files = tempFiles({
  'tools.yaml': GREET_MANIFEST,
  'prompts.yaml': ['prompts:', '  hello:', '    messages: [{ text: "Say hello." }]', ''].join('\n'),
  'preload.cjs': REQUIRE_LOG_PRELOAD,
});
after(files.cleanup);

/** The packages a stdio server required by the time it had answered `initialize` and idled `idleMs`. */
async function requiredWhenIdle(manifest: string, idleMs: number): Promise<string[]> {
  const out = join(files.dir, `${manifest}.modules.txt`);
  const child = spawn(
    process.execPath,
    ['--require', join(files.dir, 'preload.cjs'), CLI, join(files.dir, manifest), '--no-watch'],
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MODULES_OUT: out } },
  );
  const exited = new Promise((done) => child.once('exit', done));
  child.stdin.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    })}\n`,
  );
  let initialized = false;
  for await (const line of createInterface({ input: child.stdout })) {
    initialized = (JSON.parse(line) as { id?: number }).id === 0;
    if (initialized) break;
  }
  assert.ok(initialized, `${manifest} was not served`);
  await new Promise((r) => setTimeout(r, idleMs));
  child.stdin.end();
  await exited;
  return readFileSync(out, 'utf8').split('\n').filter(Boolean);
}

test('with tools, ajv is loaded while the server is idle, before any call', async () => {
  const required = await requiredWhenIdle('tools.yaml', 1500);
  assert.ok(required.includes('ajv/dist/2020.js'), `ajv was not loaded: ${required.join(', ')}`);
});

test('without tools, it is not loaded at all', async () => {
  const required = await requiredWhenIdle('prompts.yaml', 1500);
  assert.ok(required.length > 0, 'the preload recorded nothing');
  // (The build's precompiled manifest checks require ajv's small runtime helpers, not ajv.)
  const ajv = required.filter((r) => r === 'ajv' || r === 'ajv/dist/2020.js');
  assert.deepEqual(ajv, [], `ajv was loaded: ${required.join(', ')}`);
});
