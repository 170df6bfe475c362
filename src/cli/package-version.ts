import { readFileSync } from 'node:fs';

/** mcp-run's own version, from the package.json next to dist/. */
export function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
