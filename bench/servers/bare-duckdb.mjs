/**
 * The ceiling of the DuckDB rows: a bare node:http JSON-RPC server that answers a tools/call with
 * the rows of one of two prepared statements on the Parquet file, through the same client mcp-run
 * uses (@duckdb/node-api): `one_row` (`SELECT id, category, amount FROM '<file>' WHERE id = $1`, its
 * id taken from `params.arguments.id`) and `group_by` (the rows per category, with their sum). No
 * MCP, no isolation settings, no classifier, no time limit, no byte budget: what node reaches on
 * this machine with the same client. Two connections (mcp-run's default poolSize), each one query
 * at a time.
 *
 * Usage: node bench/servers/bare-duckdb.mjs --parquet <file>
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { serveRows } from './bare-answer.mjs';

const at = process.argv.indexOf('--parquet');
const file = process.argv[at + 1].replaceAll("'", "''");
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const TEXT = {
  one_row: `SELECT id, category, amount FROM '${file}' WHERE id = $1`,
  group_by: `SELECT category, count(*) AS n, sum(amount) AS total FROM '${file}' GROUP BY category ORDER BY category`,
};

const idle = [];
for (let i = 0; i < 2; i++) {
  const conn = await instance.connect();
  idle.push({ one_row: await conn.prepare(TEXT.one_row), group_by: await conn.prepare(TEXT.group_by) });
}
const waiting = [];
async function run(name, id) {
  const statements = idle.pop() ?? (await new Promise((grant) => waiting.push(grant)));
  try {
    const prepared = statements[name];
    if (name === 'one_row') prepared.bindBigInt(1, BigInt(id));
    const reader = await prepared.runAndReadAll();
    const columns = reader.columnNames();
    return reader.getRowsJS().map((row) => {
      const out = {};
      row.forEach((value, i) => {
        out[columns[i]] = typeof value === 'bigint' ? Number(value) : value;
      });
      return out;
    });
  } finally {
    const next = waiting.shift();
    if (next) next(statements);
    else idle.push(statements);
  }
}

serveRows(
  (msg) => run(msg.params.name, msg.params.arguments?.id ?? 1),
  (rows) => ({ rows, rowCount: rows.length, truncated: false }),
);
