/**
 * A recipe runs the reference MCP servers with `npx -y <package>`, as a user who copied it would.
 * In a copy outside the checkout npx would fetch them from the registry; tests point those commands
 * at the packages installed in node_modules instead (node and the package's bin file), so they run
 * offline and the same version every time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './demo.js';

const NPX = /\[npx, -y, "(@modelcontextprotocol\/server-[a-z]+)(?:@[0-9.]+)?"/g;

/** The bin file of an installed package (its only bin, or its first). */
export function installedBin(pkg: string): string {
  const dir = join(REPO, 'node_modules', pkg);
  const { bin } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  return join(dir, typeof bin === 'string' ? bin : Object.values(bin)[0]!);
}

/** The manifest's text with each `[npx, -y, "@modelcontextprotocol/server-…"` run from node_modules. */
export function localUpstreams(manifest: string): string {
  return manifest.replace(
    NPX,
    (_, pkg: string) => `[${JSON.stringify(process.execPath)}, ${JSON.stringify(installedBin(pkg))}`,
  );
}
