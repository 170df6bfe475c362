/**
 * The benchmark's tools, written for the official SDK servers (v1 `@modelcontextprotocol/sdk` and v2
 * `@modelcontextprotocol/server`) the way their docs write them: `McpServer.registerTool` with zod
 * input (and output) schemas. They mirror the manifests bench/lib/fixtures.ts writes for mcp-run:
 *
 *   --cheap        `ping`: no arguments, answers the text "pong" (mcp-run: a `content` tool).
 *   --sql <file>   `items`: `SELECT id, name, price FROM items ORDER BY id LIMIT :limit` on a read-only
 *                  better-sqlite3 database, the statement prepared once (mcp-run: a `sql` tool).
 *   --many <n>     `tool_0` … `tool_<n-1>`: one string argument `q`, answers "tool_<i>: <q>"
 *                  (mcp-run: `content` tools with a `{{q}}` template).
 *
 * Plain JavaScript on purpose: contenders start with plain `node`, like the built mcp-run CLI, so a
 * TypeScript loader never inflates their start-up time.
 */

const DESCRIPTION = (i) => `Tool number ${i} of the benchmark: echoes its argument.`;

export function parseToolArgs(argv) {
  const options = { cheap: false, sql: undefined, many: 0 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--cheap') options.cheap = true;
    else if (argv[i] === '--sql') options.sql = argv[++i];
    else if (argv[i] === '--many') options.many = Number(argv[++i]);
  }
  return options;
}

/**
 * Builds the tool definitions once (schemas included), so a per-request server factory only
 * registers them. `wrap` is `z.object` for v2 (its documented form) and the identity for v1 (which
 * documents raw shapes).
 */
export async function defineTools(argv, z, wrap) {
  const options = parseToolArgs(argv);
  const tools = [];
  if (options.cheap) {
    tools.push({
      name: 'ping',
      config: { description: 'Answers pong.' },
      handler: async () => ({ content: [{ type: 'text', text: 'pong' }] }),
    });
  }
  if (options.sql) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(options.sql, { readonly: true, fileMustExist: true });
    const statement = db.prepare('SELECT id, name, price FROM items ORDER BY id LIMIT :limit');
    const row = z.object({ id: z.number().int(), name: z.string(), price: z.number() });
    tools.push({
      name: 'items',
      config: {
        description: 'The first items of the catalogue.',
        inputSchema: wrap({ limit: z.number().int().min(1).max(1000).describe('How many rows') }),
        outputSchema: wrap({ rows: z.array(row), rowCount: z.number().int(), truncated: z.boolean() }),
      },
      handler: async ({ limit }) => {
        const rows = statement.all({ limit });
        const structuredContent = { rows, rowCount: rows.length, truncated: false };
        return { content: [{ type: 'text', text: JSON.stringify(rows) }], structuredContent };
      },
    });
  }
  for (let i = 0; i < options.many; i++) {
    const name = `tool_${i}`;
    tools.push({
      name,
      config: {
        description: DESCRIPTION(i),
        inputSchema: wrap({ q: z.string().describe('Anything') }),
      },
      handler: async ({ q }) => ({ content: [{ type: 'text', text: `${name}: ${q}` }] }),
    });
  }
  return tools;
}

export function registerAll(server, tools) {
  for (const tool of tools) server.registerTool(tool.name, tool.config, tool.handler);
  return server;
}

/** Prints the line the harness waits for (the same words mcp-run prints). */
export function announce(httpServer) {
  const { port } = httpServer.address();
  process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`);
}
