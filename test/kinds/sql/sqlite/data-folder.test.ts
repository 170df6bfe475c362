/**
 * A SQLite database the source creates (from its seed, or an empty writable one) never goes into an
 * installed package: a manifest folder inside `node_modules`, or one nobody may write, sends it to the
 * data folder, under its own name; a folder of the user's keeps it beside the manifest, as before.
 * Real files, real SQLite; the package folders are listed before and after to show nothing was written.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { parseSqlParams } from '../../../../src/kinds/sql/params.js';
import { type SqliteConfig, sqliteSource } from '../../../../src/kinds/sql/sqlite/source.js';
import { dataFolder } from '../../../../src/util/data-folder.js';
import { tempDir, testContext } from '../../context.js';

const SEED = "CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('a'), ('b');";

async function openIn(config: SqliteConfig, baseDir: string, dataDir: string) {
  const ctx = testContext({ baseDir, dataDir, name: 'shop' });
  const opened = await sqliteSource.open(config, ctx);
  assert.deepEqual(ctx.errors, []);
  const sql = opened!.capabilities.sql as SqlCapability;
  const count = await sql.query(parseSqlParams('SELECT count(*) AS n FROM items'), [], {
    maxRows: 10,
    timeoutMs: 5000,
    signal: new AbortController().signal,
  });
  await opened!.dispose();
  return { ctx, rows: count.rows };
}

const listing = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();

/** A manifest folder with its seed, as a package ships it. */
function packageFolder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'seed.sql'), SEED);
  return dir;
}

test('a seeded database of a package inside node_modules is made in the data folder, twice the same', async () => {
  const root = tempDir();
  const pkg = packageFolder(join(root, 'node_modules', 'mcp-run', 'recipes', 'shop'));
  const data = join(root, 'data', 'mcp-run', 'shop-assistant');
  const before = listing(join(root, 'node_modules'));

  const first = await openIn({ path: './shop.db', seed: './seed.sql' }, pkg, data);
  assert.deepEqual(first.rows, [{ n: 2 }]);
  assert.deepEqual(readdirSync(data), ['shop.db']);
  assert.deepEqual(listing(join(root, 'node_modules')), before, 'something was written into the package');
  assert.ok(
    first.ctx.logs.some((l) => l.includes('installed package') && l.includes(join(data, 'shop.db'))),
    first.ctx.logs.join('\n'),
  );

  // The next start finds the database in the data folder: the seed does not run again.
  const second = await openIn({ path: './shop.db', seed: './seed.sql' }, pkg, data);
  assert.deepEqual(second.rows, [{ n: 2 }]);
  assert.deepEqual(listing(join(root, 'node_modules')), before);
});

test('a seeded database of a read-only folder (no write bit for anyone) is made in the data folder', async () => {
  const root = tempDir();
  const pkg = packageFolder(join(root, 'pkg'));
  const data = join(root, 'data');
  chmodSync(pkg, 0o555);
  try {
    const { rows } = await openIn({ path: 'shop.db', seed: 'seed.sql' }, pkg, data);
    assert.deepEqual(rows, [{ n: 2 }]);
    assert.deepEqual(listing(pkg), ['seed.sql']);
    assert.ok(existsSync(join(data, 'shop.db')));
  } finally {
    chmodSync(pkg, 0o755);
  }
});

test('a writable source with no file yet, in a package, is created empty in the data folder', async () => {
  const root = tempDir();
  const pkg = packageFolder(join(root, 'node_modules', 'some-recipes'));
  const data = join(root, 'data');
  const ctx = testContext({ baseDir: pkg, dataDir: data, name: 'notes' });
  const opened = await sqliteSource.open({ path: 'notes.db', readOnly: false }, ctx);
  assert.deepEqual(ctx.errors, []);
  await opened!.dispose();
  assert.deepEqual(listing(pkg), ['seed.sql']);
  assert.ok(existsSync(join(data, 'notes.db')));
});

test("a folder of the user's keeps the database beside the manifest, as before", async () => {
  const dir = packageFolder(join(tempDir(), 'my-server'));
  const data = join(dir, '..', 'data');
  const { rows, ctx } = await openIn({ path: 'shop.db', seed: 'seed.sql' }, dir, data);
  assert.deepEqual(rows, [{ n: 2 }]);
  assert.ok(existsSync(join(dir, 'shop.db')));
  assert.equal(existsSync(data), false);
  assert.deepEqual(ctx.logs, []);
});

test('the data folder: $XDG_DATA_HOME/mcp-run/<server>, else ~/.local/share; the name made one safe folder', () => {
  assert.equal(
    dataFolder('shop-assistant', { XDG_DATA_HOME: '/x/data' }, 'linux'),
    '/x/data/mcp-run/shop-assistant',
  );
  assert.equal(dataFolder('shop', {}, 'linux').endsWith(join('.local', 'share', 'mcp-run', 'shop')), true);
  assert.equal(dataFolder('../a/b c', { XDG_DATA_HOME: '/d' }, 'linux'), '/d/mcp-run/-a-b-c');
  assert.equal(dataFolder('..', { XDG_DATA_HOME: '/d' }, 'linux'), '/d/mcp-run/mcp-run');
  assert.equal(
    dataFolder('s', { LOCALAPPDATA: 'C:/Users/u/AppData/Local' }, 'win32').includes('AppData'),
    true,
  );
});
