// Writes this recipe's data set, the same bytes on every run (no randomness: every value is
// arithmetic on the row number): data/products.csv (40 products) and data/orders.parquet (20,000
// orders over 2025, about 300 KB). Run it from the repository with `node recipes/files-analytics/generate.mjs`;
// it needs the @duckdb/node-api package that mcp-run's duckdb source uses.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const data = join(dirname(fileURLToPath(import.meta.url)), 'data');
mkdirSync(data, { recursive: true });
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await db.connect();
const categories = ['books', 'games', 'garden', 'kitchen', 'music'];
await conn.run(`CREATE TABLE products AS
  SELECT range + 1 AS product_id,
         ['Atlas', 'Beacon', 'Cinder', 'Drift', 'Ember', 'Fable', 'Grove', 'Harbor'][range % 8 + 1]
           || ' ' || ['${categories.join("', '")}'][range % 5 + 1] || ' ' || (range // 8 + 1) AS name,
         ['${categories.join("', '")}'][range % 5 + 1] AS category,
         round(4.5 + (range * 37 % 90) + (range % 4) * 0.25, 2)::DECIMAL(8, 2) AS price
  FROM range(40)`);
await conn.run(
  `COPY (SELECT * FROM products ORDER BY product_id) TO '${join(data, 'products.csv')}' (HEADER)`,
);
await conn.run(`COPY (
  SELECT range + 1 AS order_id,
         TIMESTAMP '2025-01-01 08:00:00' + INTERVAL (range * 1577) SECOND AS ordered_at,
         (range * 7919 + range // 13) % 40 + 1 AS product_id,
         (range * 31 % 5) + 1 AS quantity,
         ['north', 'south', 'east', 'west'][(range * 17 + range // 7) % 4 + 1] AS region
  FROM range(20000)
) TO '${join(data, 'orders.parquet')}' (FORMAT parquet, COMPRESSION zstd)`);
conn.closeSync();
db.closeSync();
console.log(`wrote ${join(data, 'products.csv')} and ${join(data, 'orders.parquet')}`);
