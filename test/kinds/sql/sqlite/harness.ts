/** A SQLite source opened on a fresh file made from a seed, as the SQLite tests use it. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenedSource, SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import type { InlineReader } from '../../../../src/kinds/sql/sqlite/inline.js';
import type { SqlitePool } from '../../../../src/kinds/sql/sqlite/pool.js';
import { type SqliteConfig, sqliteSource } from '../../../../src/kinds/sql/sqlite/source.js';
import { tempDir, testContext } from '../../context.js';

export async function openSeeded(seed: string, config: Omit<SqliteConfig, 'path'> & { path?: string } = {}) {
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), seed);
  const ctx = testContext({ baseDir: dir, name: 'db' });
  const opened = (await sqliteSource.open(
    { path: 'db.sqlite', seed: 'seed.sql', ...config },
    ctx,
  )) as OpenedSource;
  assert.deepEqual(ctx.errors, []);
  const sql = opened.capabilities.sql as SqlCapability & { pool: SqlitePool; inline?: InlineReader };
  return { opened, sql, pool: sql.pool, dir, file: join(dir, 'db.sqlite') };
}
