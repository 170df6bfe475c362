/**
 * The recipes `mcp-run init --recipe` copies, and what each needs beyond mcp-run to run: read from
 * its manifest (its sources' kinds and hosts, the MCP servers it starts, its commands, its auth), so
 * the listing cannot drift from the recipes. A recipe that needs nothing works offline; recipes/README.md shows the same
 * column (a test keeps the two in step).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { yamlLib } from '../manifest/yaml-lib.js';
import { isObject } from '../util/is-object.js';

export const RECIPES = fileURLToPath(new URL('../../recipes/', import.meta.url));

export interface Recipe {
  readonly name: string;
  /** The README's title, without its "Recipe:" prefix. */
  readonly title: string;
  /** What it needs to run, one phrase each; empty: it works offline. */
  readonly needs: readonly string[];
}

export function recipeNames(): string[] {
  return readdirSync(RECIPES)
    .filter((d) => existsSync(join(RECIPES, d, 'mcp.yaml')))
    .sort();
}

/** What a recipe that needs nothing beyond mcp-run shows. */
export const OFFLINE = 'nothing (works offline)';

const DATABASES: Record<string, string> = {
  postgres: 'a PostgreSQL server',
  mysql: 'a MySQL or MariaDB server',
  // An optional peer, not installed with mcp-run (docs/install.md); the files it reads ship with it.
  duckdb: 'DuckDB (npm install @duckdb/node-api)',
};

export function describeRecipe(name: string): Recipe {
  const dir = join(RECIPES, name);
  const readme = join(dir, 'README.md');
  const heading = existsSync(readme) ? /^# (.+)$/m.exec(readFileSync(readme, 'utf8'))?.[1] : undefined;
  const title = (heading ?? name).replace(/^Recipe: /, '').replace(`${name}: `, '');
  const manifest = yamlLib().parse(readFileSync(join(dir, 'mcp.yaml'), 'utf8')) as unknown;
  const doc = isObject(manifest) ? manifest : {};
  const needs = new Set<string>();
  const hosts = new Set<string>();
  // Other MCP servers (`kind: mcp`): started with npx (fetched from npm), another program, or a URL.
  const npmServers = new Set<string>();
  const programs = new Set<string>();
  for (const source of Object.values(isObject(doc.sources) ? doc.sources : {})) {
    if (!isObject(source)) continue;
    const database = DATABASES[String(source.kind)];
    if (database) needs.add(database);
    // A base URL may be `${env:NAME:-https://host}`: the default is the host it calls out of the box.
    const url = source.kind === 'http' ? source.baseUrl : source.kind === 'mcp' ? source.url : undefined;
    const host = url === undefined ? undefined : /https?:\/\/([^/}:"]+)/.exec(String(url))?.[1];
    if (host) hosts.add(host);
    if (source.kind === 'mcp' && Array.isArray(source.command)) {
      const [program, ...args] = source.command.map(String);
      const pkg = args.find((a) => !a.startsWith('-'));
      // Named without the version a recipe pins (`@scope/name@1.2.3`).
      if (program === 'npx' && pkg) npmServers.add(pkg.replace(/(.)@[^/@]*$/, '$1'));
      else if (program) programs.add(program);
    }
  }
  if (hosts.size > 0) needs.add(`the internet (${[...hosts].join(', ')})`);
  if (npmServers.size > 0) needs.add(`npx (${[...npmServers].join(', ')})`);
  for (const tool of Object.values(isObject(doc.tools) ? doc.tools : {})) {
    if (isObject(tool) && tool.kind === 'shell' && Array.isArray(tool.command))
      programs.add(String(tool.command[0]));
  }
  if (programs.size > 0) needs.add(`the programs it runs (${[...programs].join(', ')})`);
  if (isObject(doc.server) && isObject(doc.server.auth)) needs.add('an OAuth authorization server');
  return { name, title, needs: [...needs] };
}

/** `mcp-run init --recipe` with no name: every recipe, and what it needs. */
export function listRecipes(): void {
  const recipes = recipeNames().map(describeRecipe);
  const width = Math.max(...recipes.map((r) => r.name.length));
  const lines = ['Recipes (mcp-run init --recipe NAME), and what each needs beyond mcp-run:'];
  for (const r of recipes) {
    lines.push(
      `  ${r.name.padEnd(width)}  ${r.title}`,
      `  ${''.padEnd(width)}  needs ${r.needs.join('; ') || OFFLINE}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
