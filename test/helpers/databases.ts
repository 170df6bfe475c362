/**
 * Real databases for the SQL tests: SQLite in a temp folder, and PostgreSQL / MariaDB when
 * MCP_RUN_TEST_POSTGRES_URL / MCP_RUN_TEST_MYSQL_URL are set (otherwise those tests are reported as
 * skipped, with the reason). Each test file gets its own Postgres schema or MariaDB database under a
 * unique prefix, filled with the same oddly named tables on every engine, and drops it afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { OpenedSource, SqlCapability, SqlQueryOptions } from '../../src/kinds/contract/kinds.js';
import { mysqlSource } from '../../src/kinds/sql/mysql/source.js';
import { parseSqlParams } from '../../src/kinds/sql/params.js';
import { postgresSource } from '../../src/kinds/sql/postgres/source.js';
import { sqliteSource } from '../../src/kinds/sql/sqlite/source.js';
import { testContext } from '../kinds/context.js';

export const PG_URL = process.env.MCP_RUN_TEST_POSTGRES_URL;
export const MYSQL_URL = process.env.MCP_RUN_TEST_MYSQL_URL;
export const PG_SKIP = PG_URL ? false : 'MCP_RUN_TEST_POSTGRES_URL is not set';
export const MYSQL_SKIP = MYSQL_URL ? false : 'MCP_RUN_TEST_MYSQL_URL is not set';

/** Runs `text` (with `:name` parameters) on a capability, with small test limits unless overridden. */
export function runSql(
  sql: SqlCapability,
  text: string,
  values: unknown[] = [],
  extra: Partial<SqlQueryOptions> = {},
) {
  const options = { maxRows: 3, timeoutMs: 4000, signal: new AbortController().signal, ...extra };
  return sql.query(parseSqlParams(text), values, options);
}

/**
 * Eight calls on a one-connection pool, cancelled before any got the connection: what each call
 * ended with, and the server's id of the connection (`whoAmI`, a one-row `id`) before and after.
 */
export async function cancelledWhileWaiting(
  sql: SqlCapability,
  whoAmI: string,
): Promise<{ outcomes: Set<string>; before: unknown; after: unknown }> {
  const id = async () => (await runSql(sql, whoAmI)).rows[0]!.id;
  const before = await id();
  const controller = new AbortController();
  const calls = Array.from({ length: 8 }, () =>
    runSql(sql, 'SELECT 1 AS one', [], { signal: controller.signal }).then(
      () => 'answered',
      (err: Error) => err.message,
    ),
  );
  controller.abort();
  return { outcomes: new Set(await Promise.all(calls)), before, after: await id() };
}

export type Engine = 'sqlite' | 'postgres' | 'mysql';
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres', 'mysql'];
export const skipFor = (engine: Engine) =>
  engine === 'postgres' ? PG_SKIP : engine === 'mysql' ? MYSQL_SKIP : false;

/** The table names every engine gets: spaces, quotes, upper case and Unicode. */
export const CUSTOMERS = 'Customers ✓';
export const ITEMS = 'order "items"';
export const VIEW = 'naïve view';

/** The same schema on every engine; `q` quotes an identifier the engine's way. */
export function schemaSql(engine: Engine): string[] {
  const q = (name: string) =>
    engine === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
  return [
    `CREATE TABLE ${q(CUSTOMERS)} (
       id INTEGER NOT NULL PRIMARY KEY,
       ${q('E-mail')} VARCHAR(200) NOT NULL UNIQUE,
       name TEXT,
       created DATE DEFAULT '2024-01-01'
     )`,
    `CREATE TABLE ${q(ITEMS)} (
       id INTEGER NOT NULL PRIMARY KEY,
       customer_id INTEGER NOT NULL${engine === 'mysql' ? '' : ` REFERENCES ${q(CUSTOMERS)} (id) ON DELETE CASCADE`},
       ${q('Qty')} INTEGER DEFAULT 1,
       note TEXT
     )`,
    // MySQL ignores an inline REFERENCES (MariaDB does not): a table constraint works on both.
    ...(engine === 'mysql'
      ? [
          `ALTER TABLE ${q(ITEMS)} ADD CONSTRAINT ${q('items → customers')} FOREIGN KEY (customer_id) REFERENCES ${q(CUSTOMERS)} (id) ON DELETE CASCADE`,
        ]
      : []),
    `CREATE INDEX ${q('idx by customer')} ON ${q(ITEMS)} (customer_id, ${q('Qty')})`,
    `CREATE VIEW ${q(VIEW)} AS SELECT c.name, COUNT(i.id) AS items FROM ${q(CUSTOMERS)} c LEFT JOIN ${q(ITEMS)} i ON i.customer_id = c.id GROUP BY c.name`,
    `INSERT INTO ${q(CUSTOMERS)} (id, ${q('E-mail')}, name) VALUES (1, 'ann@example.com', 'Ann'), (2, 'bob@example.com', 'Bob'), (3, 'cy@example.com', 'Cy')`,
    `INSERT INTO ${q(ITEMS)} (id, customer_id, ${q('Qty')}, note) VALUES (1, 1, 2, 'first'), (2, 1, 1, NULL), (3, 2, 5, 'pipes | and ; semicolons'), (4, 3, 1, NULL), (5, 3, 3, 'last')`,
  ];
}

/** A database of one engine holding the shared schema; `admin` runs setup SQL outside the source. */
export interface TestDatabase {
  readonly engine: Engine;
  /** The source config (without kind) that reaches this database. */
  readonly config: Record<string, unknown>;
  admin(sql: string): Promise<Record<string, unknown>[]>;
  open(extra?: Record<string, unknown>): Promise<{ sql: SqlCapability; opened: OpenedSource }>;
  drop(): Promise<void>;
}

/** Polls (bounded: at most 10 s) until the condition holds; fails the test otherwise. */
/** Statements running now on the PostgreSQL connections named `name` (their application_name). */
export async function activeStatements(db: TestDatabase, name: string): Promise<number> {
  const rows = await db.admin(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND application_name = '${name}'`,
  );
  return Number(rows[0]!.n);
}

export async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the condition did not hold within 10 s');
}

const unique = (label: string) => `mcp_run_${label}_${randomBytes(4).toString('hex')}`;

export async function createDatabase(engine: Engine, label: string): Promise<TestDatabase> {
  if (engine === 'sqlite') return sqliteDatabase();
  if (engine === 'postgres') return postgresDatabase(label);
  return mysqlDatabase(label);
}

async function openWith(
  kind: typeof sqliteSource | typeof postgresSource | typeof mysqlSource,
  config: Record<string, unknown>,
  baseDir: string,
) {
  const ctx = testContext({ baseDir, name: 'db' });
  const opened = await (kind.open as (c: unknown, x: typeof ctx) => Promise<OpenedSource | undefined>)(
    config,
    ctx,
  );
  if (!opened) throw new Error(`cannot open: ${JSON.stringify(ctx.errors)}`);
  return { sql: opened.capabilities.sql as SqlCapability, opened };
}

function sqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-sqlite-'));
  const path = join(dir, 'test.db');
  const db = new Database(path);
  db.pragma('foreign_keys = ON');
  for (const statement of schemaSql('sqlite')) db.exec(statement);
  return {
    engine: 'sqlite',
    config: { path },
    admin: async (sql) => {
      const stmt = db.prepare(sql);
      if (stmt.reader) return stmt.all() as Record<string, unknown>[];
      stmt.run();
      return [];
    },
    open: (extra = {}) => openWith(sqliteSource, { path, ...extra }, dir),
    drop: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresDatabase(label: string): Promise<TestDatabase> {
  const url = PG_URL!;
  const schema = `${unique(label)} Schéma "x"`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const qs = pg.escapeIdentifier(schema);
  await client.query(`CREATE SCHEMA ${qs}`);
  await client.query(`SET search_path TO ${qs}`);
  for (const statement of schemaSql('postgres')) await client.query(statement);
  await client.query('ANALYZE');
  return {
    engine: 'postgres',
    config: { url, schemas: [schema] },
    admin: async (sql) => (await client.query(sql)).rows,
    open: (extra = {}) => openWith(postgresSource, { url, schemas: [schema], ...extra }, tmpdir()),
    drop: async () => {
      await client.query(`DROP SCHEMA ${qs} CASCADE`);
      await client.end();
    },
  };
}

async function mysqlDatabase(label: string): Promise<TestDatabase> {
  const base = new URL(MYSQL_URL!);
  const name = unique(label);
  const admin = await mysql.createConnection({ uri: MYSQL_URL!, charset: 'utf8mb4' });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  await admin.query(`USE \`${name}\``);
  for (const statement of schemaSql('mysql')) await admin.query(statement);
  for (const table of [CUSTOMERS, ITEMS]) await admin.query(`ANALYZE TABLE \`${table}\``);
  base.pathname = `/${name}`;
  const url = base.toString();
  return {
    engine: 'mysql',
    config: { url },
    admin: async (sql) => {
      const [rows] = await admin.query(sql);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    },
    open: (extra = {}) => openWith(mysqlSource, { url, ...extra }, tmpdir()),
    drop: async () => {
      await admin.query(`DROP DATABASE \`${name}\``);
      await admin.end();
    },
  };
}
