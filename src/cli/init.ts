/**
 * `mcp-run init`: writes a starter manifest, or copies a recipe (its manifest, its README and the
 * files it uses) into a folder, then says which environment variables the manifest reads must be
 * set before `mcp-run validate` passes. Existing files are never overwritten without --force (a
 * README.md already there keeps its place: the recipe's is written beside it as README.<recipe>.md).
 * The manifest's first line points editors at this installation's JSON Schema.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suggest } from '../util/suggest.js';
import { envReferences } from './env-refs.js';
import { listRecipes, RECIPES, recipeNames } from './recipes.js';

const SCHEMA = fileURLToPath(new URL('../../schemas/manifest.schema.json', import.meta.url));
const SCHEMA_LINE = /^# yaml-language-server: \$schema=.*$/m;

const STARTER = `# A starter manifest. Serve it with \`mcp-run\`, try a tool with \`mcp-run call days_between --arg
# from=2026-01-01 --arg to=2026-12-25\`, and edit away: a running server reloads on save.

server:
  name: my-server
  version: 0.1.0

sources:
  scratch: { kind: sqlite, path: ":memory:" }   # point path at a database file to query your data

tools:
  days_between:
    kind: sql
    source: scratch
    description: The number of days between two dates.
    input:
      from: { type: string, description: "The first date, YYYY-MM-DD" }
      to: { type: string, description: "The second date, YYYY-MM-DD" }
    sql: SELECT CAST(julianday(:to) - julianday(:from) AS INTEGER) AS days

resources:
  readme:
    kind: text
    uri: notes://readme
    description: What this server is for.
    text: Replace this note with what the assistant should know about your data.

prompts:
  plan_trip:
    description: Plan something that is some days away.
    arguments:
      date: { description: "The date of the event, YYYY-MM-DD", required: true }
    messages:
      - text: How many days are left until {{date}}? Use the days_between tool, then make a plan.
`;

export interface InitOptions {
  /** A recipe's name; `true` (`--recipe` alone): list the recipes instead. */
  readonly recipe?: string | true;
  readonly dir: string;
  readonly force?: boolean;
}

export function initCommand(options: InitOptions): void {
  if (options.recipe === true) {
    listRecipes();
    return;
  }
  const target = resolve(options.dir);
  const files = options.recipe === undefined ? starterFiles() : recipeFiles(options.recipe);
  if (!files) return;
  const readme = files.get('README.md');
  if (readme && options.recipe && existsSync(join(target, 'README.md')) && !options.force) {
    files.delete('README.md');
    files.set(`README.${options.recipe}.md`, readme);
  }
  const clashes = [...files.keys()].filter((name) => existsSync(join(target, name)));
  if (clashes.length > 0 && !options.force) {
    process.stderr.write(
      `mcp-run: not writing over ${clashes.join(', ')} in ${target}; use --force to replace\n`,
    );
    process.exitCode = 1;
    return;
  }
  for (const [name, write] of files) {
    mkdirSync(dirname(join(target, name)), { recursive: true });
    write(join(target, name), target);
  }
  const what = options.recipe ? `the ${options.recipe} recipe` : 'a starter manifest';
  const lines = [`Wrote ${what} to ${join(target, 'mcp.yaml')}.`];
  const readmeName = [...files.keys()].find((n) => /^README(\.[^/]+)?\.md$/.test(n));
  if (readmeName) lines.push(`What it does and how to try it: ${join(target, readmeName)}.`);
  const env = envReferences(readFileSync(join(target, 'mcp.yaml'), 'utf8'));
  if (env.required.length > 0) {
    lines.push(
      `Set before mcp-run validate passes (the manifest reads them): ${env.required.join(', ')}.`,
      '  (mcp-run validate --offline checks everything else without them.)',
    );
  }
  if (env.optional.length > 0) lines.push(`Optional, with defaults: ${env.optional.join(', ')}.`);
  lines.push('Next: mcp-run validate, mcp-run list, then serve it with mcp-run.');
  process.stdout.write(`${lines.join('\n')}\n`);
}

type Writer = (path: string, root: string) => void;

function starterFiles(): Map<string, Writer> {
  return new Map([['mcp.yaml', (path, root) => writeFileSync(path, withSchemaLine(STARTER, root))]]);
}

/** Every file of the recipe (but a database it creates), with the manifest's schema line pointed at this install. */
function recipeFiles(name: string): Map<string, Writer> | undefined {
  const known = recipeNames();
  if (!known.includes(name)) {
    const hint = suggest(name, known);
    process.stderr.write(
      `mcp-run: no recipe "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; recipes: ${known.join(', ')}\n`,
    );
    process.exitCode = 2;
    return undefined;
  }
  const dir = join(RECIPES, name);
  const files = new Map<string, Writer>();
  for (const entry of readdirSync(dir, { recursive: true }).map(String)) {
    const source = join(dir, entry);
    if (entry.endsWith('.db') || !statSync(source).isFile()) continue;
    files.set(
      entry,
      entry === 'mcp.yaml'
        ? (path, root) => writeFileSync(path, withSchemaLine(readFileSync(source, 'utf8'), root))
        : (path) => copyFileSync(source, path),
    );
  }
  return files;
}

function withSchemaLine(manifest: string, root: string): string {
  const line = `# yaml-language-server: $schema=${relative(root, SCHEMA)}`;
  return SCHEMA_LINE.test(manifest) ? manifest.replace(SCHEMA_LINE, line) : `${line}\n${manifest}`;
}
