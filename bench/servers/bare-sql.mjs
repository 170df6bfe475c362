/**
 * The ceiling of the SQL rows: a bare node:http JSON-RPC server that answers every request with the
 * row of `SELECT id, name, price FROM <table> WHERE id = $1`, its id taken from the request's
 * `params.arguments.id`. No MCP, no read-only transaction, no time limit, no worker process: what
 * node itself reaches on this machine with the same driver, for the toolbox scenario's rows.
 *
 * Usage:
 *   node bench/servers/bare-sql.mjs --sqlite <file>     better-sqlite3 in this process, one prepared statement
 *   node bench/servers/bare-sql.mjs --postgres <url> --table <name>
 *                                                       a pg pool of 5 (mcp-run's default), one named statement
 */
import { createRequire } from 'node:module';
import { serveRows } from './bare-answer.mjs';

const require = createRequire(import.meta.url);
const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

let one;
const sqlite = arg('--sqlite');
if (sqlite !== undefined) {
  const Database = require('better-sqlite3');
  const statement = new Database(sqlite, { readonly: true }).prepare(
    'SELECT id, name, price FROM items WHERE id = ?',
  );
  one = async (id) => [statement.get(id)];
} else {
  const pg = require('pg');
  const pool = new pg.Pool({ connectionString: arg('--postgres'), max: 5 });
  const text = `SELECT id, name, price FROM ${arg('--table') ?? 'items'} WHERE id = $1`;
  one = async (id) => (await pool.query({ name: 'item', text, values: [id] })).rows;
}

serveRows((msg) => one(msg.params.arguments.id));
