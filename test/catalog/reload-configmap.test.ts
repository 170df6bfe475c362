/**
 * Hot reload of a manifest mounted the way a Kubernetes ConfigMap volume mounts it: `mcp.yaml ->
 * ..data/mcp.yaml`, `..data -> ..<version>`; an update writes a new version folder and swaps the
 * `..data` link (a rename), which changes no watched file's content in place.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI } from '../helpers/demo.js';

const VERSION = (tools: string[]) =>
  `server: { name: cm, version: 1.0.0 }\ntools:\n${tools
    .map((t) => `  ${t}:\n    kind: content\n    description: ${t}.\n    content:\n      - text: ${t}\n`)
    .join('')}`;

test('a ConfigMap-style symlink swap reloads the manifest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-configmap-'));
  const version = (name: string, tools: string[]) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'mcp.yaml'), VERSION(tools));
  };
  version('..v1', ['a']);
  symlinkSync('..v1', join(dir, '..data'));
  symlinkSync('..data/mcp.yaml', join(dir, 'mcp.yaml'));
  const child = spawn(
    process.execPath,
    [CLI, join(dir, 'mcp.yaml'), '--http', '--port', '0', '--log-level', 'debug'],
    {
      stdio: 'pipe',
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  try {
    const until = Date.now() + 15_000;
    const waitFor = async (pattern: RegExp, what: string) => {
      while (!pattern.test(stderr)) {
        assert.ok(Date.now() < until && child.exitCode === null, `never saw ${what}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await waitFor(/watching .* for changes/, 'the watcher ready');
    version('..v2', ['a', 'b']);
    symlinkSync('..v2', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    await waitFor(/reloaded mcp\.yaml: \+1 tool/, 'the reload after the first swap');
    version('..v3', ['a', 'b', 'c']);
    symlinkSync('..v3', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    rmSync(join(dir, '..v1'), { recursive: true });
    await waitFor(
      /reloaded mcp\.yaml: \+1 tool[\s\S]*reloaded mcp\.yaml: \+1 tool/,
      'the reload after the second swap',
    );
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
});
