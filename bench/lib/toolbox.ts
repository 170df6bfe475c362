/**
 * MCP Toolbox for Databases (Google's Go server, `@toolbox-sdk/server-linux-x64` on npm, a
 * devDependency) as a contender: where its binary is, the `tools.yaml` that serves the same SQL
 * tools as an mcp-run manifest, and its process. Toolbox prints no address: the bench picks a free
 * port and polls its MCP endpoint (`/mcp`, stateless, protocol 2025-11-25) until it answers.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BASE_HEADERS, initialize } from './mcp.js';
import { ServerProcess } from './proc.js';

/** The Toolbox binary, or why there is none (another platform, or the package is not installed). */
export function toolboxBinary(): { path: string } | { missing: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { missing: `Toolbox's npm binary is for linux-x64, this is ${process.platform}-${process.arch}` };
  }
  try {
    const pkg = createRequire(import.meta.url).resolve('@toolbox-sdk/server-linux-x64/package.json');
    const path = join(dirname(pkg), 'bin/toolbox');
    return existsSync(path) ? { path } : { missing: `${path} is missing` };
  } catch {
    return { missing: '@toolbox-sdk/server-linux-x64 is not installed (npm install --include=dev)' };
  }
}

/** One SQL tool with integer parameters, written for both servers. */
export interface SqlToolSpec {
  readonly name: string;
  readonly description: string;
  /** The statement with `:name` parameters (mcp-run); Toolbox gets `$n` (postgres) or `?` (sqlite). */
  readonly sql: string;
  readonly params: readonly { name: string; description: string }[];
}

export type ToolboxSource =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

const q = (s: string) => JSON.stringify(s);

/** A Toolbox tools.yaml (source `db`) for `tools`. */
export function toolboxYaml(source: ToolboxSource, tools: readonly SqlToolSpec[]): string {
  const lines: string[] = ['sources:', '  db:'];
  if (source.kind === 'sqlite') lines.push('    kind: sqlite', `    database: ${q(source.path)}`);
  else {
    const u = new URL(source.url);
    lines.push(
      '    kind: postgres',
      `    host: ${q(u.hostname)}`,
      `    port: ${u.port || '5432'}`,
      `    database: ${q(u.pathname.slice(1))}`,
      `    user: ${q(decodeURIComponent(u.username))}`,
      // Toolbox requires a password; a trust-authenticated server ignores it.
      `    password: ${q(decodeURIComponent(u.password) || 'unused')}`,
    );
  }
  lines.push('tools:');
  for (const t of tools) {
    let n = 0;
    const statement = t.sql.replace(/:([A-Za-z_]\w*)/g, () => (source.kind === 'postgres' ? `$${++n}` : '?'));
    lines.push(
      `  ${t.name}:`,
      `    kind: ${source.kind}-sql`,
      '    source: db',
      `    description: ${q(t.description)}`,
      '    parameters:',
      ...t.params.flatMap((p) => [
        `      - name: ${p.name}`,
        '        type: integer',
        `        description: ${q(p.description)}`,
      ]),
      `    statement: ${q(statement)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The same tools as mcp-run `sql` tools on source `db` (its `sources:` block is the caller's). */
export function mcpRunSqlTools(tools: readonly SqlToolSpec[]): string {
  const lines: string[] = ['tools:'];
  for (const t of tools) {
    lines.push(
      `  ${t.name}:`,
      '    kind: sql',
      '    source: db',
      `    description: ${q(t.description)}`,
      '    input:',
      ...t.params.map((p) => `      ${p.name}: { type: integer, description: ${q(p.description)} }`),
      `    sql: ${q(t.sql)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Starts Toolbox on `config` and resolves once its MCP endpoint answers `initialize`. */
export async function startToolbox(
  binary: string,
  config: string,
  timeoutMs = 120_000,
): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const t0 = performance.now();
  const args = ['--config', config, '--port', String(port), '--disable-version-check', '--disable-reload'];
  // WARN: at INFO it logs every request, which mcp-run does not do.
  const child = spawn(binary, [...args, '--log-level', 'WARN'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const proc = ServerProcess.adopt('toolbox', child, url);
  const end = t0 + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`toolbox exited (${child.exitCode}): ${proc.stderr}`);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: BASE_HEADERS,
        body: JSON.stringify(initialize(0)),
      });
      if (res.status === 200) {
        await res.text();
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() > end) {
      await proc.stop();
      throw new Error(`toolbox did not answer within ${timeoutMs} ms: ${proc.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  proc.startMs = performance.now() - t0;
  return proc;
}
