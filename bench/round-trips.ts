/**
 * `npx tsx bench/round-trips.ts`: counts the network round trips of one one-row `sql` call on
 * PostgreSQL and MySQL/MariaDB (MCP_RUN_TEST_POSTGRES_URL, MCP_RUN_TEST_MYSQL_URL). The source
 * connects through a TCP relay on 127.0.0.1 that counts the turns of the conversation: a round trip
 * is a flight of bytes from the client after the server has spoken. Pool connections are warm
 * (connected, statements prepared) before the calls that are counted. Not a test: a measurement.
 */
import type { OpenedSource, SqlCapability, SqlQueryOptions } from '../src/kinds/contract/kinds.js';
import { mysqlSource } from '../src/kinds/sql/mysql/source.js';
import { parseSqlParams } from '../src/kinds/sql/params.js';
import { postgresSource } from '../src/kinds/sql/postgres/source.js';
import { turnRelay } from '../test/helpers/turn-relay.js';
import { testContext } from '../test/kinds/context.js';

const options = (): SqlQueryOptions => ({
  maxRows: 100,
  timeoutMs: 5000,
  signal: new AbortController().signal,
});

async function count(label: string, url: string, kind: typeof postgresSource | typeof mysqlSource) {
  const target = new URL(url);
  const r = await turnRelay(target.hostname, Number(target.port));
  target.hostname = '127.0.0.1';
  target.port = String(r.port);
  const ctx = testContext({ baseDir: process.cwd(), name: 'db' });
  const opened = (await (kind.open as (c: unknown, x: typeof ctx) => Promise<OpenedSource | undefined>)(
    { url: target.toString(), poolSize: 1 },
    ctx,
  )) as OpenedSource;
  if (!opened) throw new Error(`cannot open: ${JSON.stringify(ctx.errors)}`);
  const sql = opened.capabilities.sql as SqlCapability;
  const statement = parseSqlParams('SELECT :id AS id, :name AS name');
  for (let i = 0; i < 3; i++) await sql.query(statement, [i, 'warm'], options());
  const calls = 20;
  r.turns = 0;
  for (let i = 0; i < calls; i++) await sql.query(statement, [i, 'x'], options());
  console.log(`${label}: ${(r.turns / calls).toFixed(2)} round trips per one-row read-only call`);
  await opened.dispose?.();
  r.close();
}

const pgUrl = process.env.MCP_RUN_TEST_POSTGRES_URL;
const myUrl = process.env.MCP_RUN_TEST_MYSQL_URL;
if (pgUrl) await count('postgres', pgUrl, postgresSource);
else console.log('postgres: skipped, MCP_RUN_TEST_POSTGRES_URL is not set');
if (myUrl) await count('mysql', myUrl, mysqlSource);
else console.log('mysql: skipped, MCP_RUN_TEST_MYSQL_URL is not set');
