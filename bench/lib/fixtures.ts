/**
 * The manifests and data the scenarios serve, written into a temp folder. Each manifest has a twin
 * for the SDK contenders in bench/servers/sdk-tools.mjs (same names, descriptions, arguments and
 * answers), so both sides serve the same tools.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const HEADER = 'server: { name: bench, version: 1.0.0 }\n';

/** `ping`: no arguments, answers "pong". */
export const PING_TOOL = `  ping:
    kind: content
    description: Answers pong.
    content: [{ text: pong }]
`;

export function writeManifest(dir: string, file: string, text: string): string {
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

export function cheapManifest(dir: string): string {
  return writeManifest(dir, 'cheap.yaml', `${HEADER}tools:\n${PING_TOOL}`);
}

/**
 * `tool_0` … `tool_<n-1>`, each with one string argument `q`, answering "tool_<i>: <q>". `edit`
 * changes tool_0's description (hot reload writes a new one each run).
 */
export function manyToolsText(n: number, options: { pageSize?: number; edit?: number } = {}): string {
  const server = options.pageSize
    ? `server: { name: bench, version: 1.0.0, pageSize: ${options.pageSize} }\n`
    : HEADER;
  const lines = [server, 'tools:\n'];
  for (let i = 0; i < n; i++) {
    const description =
      i === 0 && options.edit !== undefined
        ? `Tool number 0 of the benchmark: echoes its argument (edit ${options.edit}).`
        : `Tool number ${i} of the benchmark: echoes its argument.`;
    lines.push(
      `  tool_${i}:\n    kind: content\n    description: "${description}"\n` +
        `    input: { q: { type: string, description: Anything } }\n` +
        `    content: [{ text: "tool_${i}: {{q}}" }]\n`,
    );
  }
  return lines.join('');
}

/** A read-only SQLite file with 1,000 rows in `items` and the mcp-run manifest that queries it. */
export function sqlFixture(dir: string): { db: string; manifest: string } {
  const db = join(dir, 'items.db');
  const conn = new Database(db);
  conn.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL)');
  const insert = conn.prepare('INSERT INTO items (id, name, price) VALUES (?, ?, ?)');
  conn.transaction(() => {
    for (let i = 1; i <= 1000; i++) insert.run(i, `item number ${i}`, Math.round(i * 137.5) / 100);
  })();
  conn.close();
  const manifest = writeManifest(
    dir,
    'sql.yaml',
    `${HEADER}sources:
  shop: { kind: sqlite, path: ./items.db }
tools:
  items:
    kind: sql
    source: shop
    description: The first items of the catalogue.
    input:
      limit: { type: integer, minimum: 1, maximum: 1000, description: How many rows }
    sql: SELECT id, name, price FROM items ORDER BY id LIMIT :limit
    maxRows: 1000
`,
  );
  return { db, manifest };
}

/** An `http` tool in front of `upstream`, and the `ping` tool (the same MCP hop, no upstream). */
export function proxyManifest(dir: string, upstream: string): string {
  return writeManifest(
    dir,
    'proxy.yaml',
    `${HEADER}sources:
  api: { kind: http, baseUrl: "${upstream}" }
tools:
  get_item:
    kind: http
    source: api
    description: One item of the upstream API.
    method: GET
    path: /items/42
${PING_TOOL}`,
  );
}

/**
 * `tool_0` … `tool_<n-1>` like `manyToolsText`'s, with a larger input schema each, and `aliases`
 * YAML aliases spread evenly through the document: every fifth tool anchors its input (`&in_<i>`)
 * and the next four reuse it (`*in_<i>`), the way generated imports share schemas. Each anchor is
 * used four times, well under the alias-expansion guard.
 */
export function aliasedToolsText(n: number, aliases: number): string {
  const lines = [HEADER, 'tools:\n'];
  const step = aliases > 0 ? Math.max(5, Math.floor((n * 4) / aliases)) : Number.POSITIVE_INFINITY;
  let used = 0;
  let anchor = -1;
  for (let i = 0; i < n; i++) {
    const slot = i % step;
    let input: string;
    const schema =
      `{ q: { type: string, description: "The query of tool ${i}, any text the benchmark sends" },` +
      ` limit: { type: integer, minimum: 1, maximum: 100, description: "How many rows tool ${i} returns at most" },` +
      ` mode: { type: string, enum: [fast, slow, exact], description: "How tool ${i} searches" } }`;
    if (slot === 0 && used < aliases) {
      anchor = i;
      input = `&in_${i} ${schema}`;
    } else if (slot <= 4 && anchor >= 0 && used < aliases) {
      used++;
      input = `*in_${anchor}`;
    } else input = schema;
    lines.push(
      `  tool_${i}:\n    kind: content\n    description: "Tool number ${i} of the benchmark: echoes its argument."\n` +
        `    input: ${input}\n    content: [{ text: "tool_${i}: {{q}}" }]\n`,
    );
  }
  return lines.join('');
}
