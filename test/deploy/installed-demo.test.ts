/**
 * The demo served from an installed package writes nothing into it (issue 48): the package's files
 * (`npm pack`'s list) are copied as an install lays them out, once made read-only (no write bit, as a
 * package in a Nix store or an image has it) and once inside `node_modules` (npm, npx), and the demo
 * is served from an empty folder through the official client. Its database is made from the seed in
 * the data folder ($XDG_DATA_HOME/mcp-run/shop-assistant), and a listing of the package (names, sizes,
 * modes, times) is the same before and after. Root may write a read-only folder, so the listing, not
 * a refused write, is what shows it. Needs the build (dist/).
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { packedFiles, REPO } from '../helpers/demo.js';

/** Every entry under `dir` with what a write would change; symlinks are not followed. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const s = lstatSync(path);
      out.push(`${path.slice(dir.length)} ${s.mode.toString(8)} ${s.size} ${s.mtimeMs}`);
      if (s.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return out;
}

function makeReadOnly(dir: string, writable = false): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const s = lstatSync(path);
    if (s.isSymbolicLink()) continue;
    if (s.isDirectory()) makeReadOnly(path, writable);
    else chmodSync(path, writable ? 0o644 : 0o444);
  }
  chmodSync(dir, writable ? 0o755 : 0o555);
}

let packed: string[] = [];
const roots: string[] = [];

/** The packed files, copied into `pkg`; its dependencies are this checkout's, linked beside it. */
function installCopy(pkg: string): void {
  for (const file of packed) {
    mkdirSync(dirname(join(pkg, file)), { recursive: true });
    cpSync(join(REPO, file), join(pkg, file));
  }
}

async function serveDemo(cwd: string, args: string[], xdg: string) {
  const client = new Client({ name: 'installed-demo', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd,
    env: { ...(process.env as Record<string, string>), XDG_DATA_HOME: xdg },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  await client.connect(transport);
  try {
    const tools = await client.listTools();
    const call = await client.callTool({ name: 'find_orders', arguments: { email: 'ada@example.com' } });
    return { tools: tools.tools.map((t) => t.name), call, stderr: () => stderr };
  } finally {
    await client.close();
  }
}

describe('the demo served from an installed package', () => {
  before(() => {
    packed = packedFiles();
  });
  after(() => {
    for (const root of roots) {
      makeReadOnly(root, true);
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('read-only: serves, and its database goes to the data folder, nothing into the package', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-run-installed-'));
    roots.push(root);
    const pkg = join(root, 'lib', 'mcp-run');
    installCopy(pkg);
    symlinkSync(join(REPO, 'node_modules'), join(root, 'lib', 'node_modules'));
    makeReadOnly(pkg);
    const cwd = join(root, 'empty');
    mkdirSync(cwd);
    const before = listing(pkg);

    const served = await serveDemo(
      cwd,
      [join(pkg, 'dist/cli/bin.cjs'), join(pkg, 'mcp.yaml.example')],
      join(root, 'xdg'),
    );
    assert.ok(served.tools.includes('find_orders'), served.tools.join());
    assert.equal(served.call.isError, undefined, JSON.stringify(served.call));
    assert.deepEqual(listing(pkg), before, 'the demo wrote into the package');
    assert.deepEqual(readdirSync(join(root, 'xdg', 'mcp-run', 'shop-assistant')), ['shop.db']);
    assert.deepEqual(readdirSync(cwd), []);
    assert.match(served.stderr(), /installed package.*shop-assistant\/shop\.db/);
  });

  it('inside node_modules: `mcp-run --demo` serves it, its database in the data folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-run-installed-'));
    roots.push(root);
    const pkg = join(root, 'node_modules', 'mcp-run');
    installCopy(pkg);
    symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
    const cwd = join(root, 'empty');
    mkdirSync(cwd);
    const before = listing(pkg);

    const served = await serveDemo(cwd, [join(pkg, 'dist/cli/bin.cjs'), '--demo'], join(root, 'xdg'));
    assert.ok(served.tools.includes('find_orders'), served.tools.join());
    assert.equal(served.call.isError, undefined, JSON.stringify(served.call));
    assert.deepEqual(listing(pkg), before, 'the demo wrote into the package');
    assert.deepEqual(readdirSync(join(root, 'xdg', 'mcp-run', 'shop-assistant')), ['shop.db']);
    assert.deepEqual(readdirSync(cwd), []);
  });
});
