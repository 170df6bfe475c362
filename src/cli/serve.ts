import { relative } from 'node:path';
import { loadCatalog } from '../catalog/load.js';
import { type Catalog, CatalogRef } from '../catalog/types.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { type LogThreshold, StderrLogger } from '../log.js';
import { createProtocol } from '../protocol/server.js';
import { serveStdio } from '../transports/stdio.js';

export interface ServeOptions {
  readonly logLevel: LogThreshold;
}

/**
 * `mcp-run [manifest]`: compile the manifest and serve it on stdio until stdin ends or a signal
 * arrives. A manifest with errors prints them all and exits 1 before anything is served.
 */
export async function serveCommand(file: string, options: ServeOptions): Promise<void> {
  const log = new StderrLogger(options.logLevel);
  let catalog: Catalog;
  try {
    catalog = await loadCatalog(file, builtinKinds(), log);
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    process.stderr.write(
      `${log.redact(err.message)}\n\nmcp-run: not serving ${file}: fix the errors above\n`,
    );
    process.exit(1);
  }

  const protocol = createProtocol(new CatalogRef(catalog), { log, listChanged: false });
  const stdio = serveStdio(protocol, { log });
  if (process.stdin.isTTY) log.info(banner(file, catalog));
  else log.debug(`serving ${file} on stdio`);

  const stop = async () => {
    protocol.close();
    await stdio.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  await stdio.closed;
  await catalog.dispose();
  process.exit(0);
}

function banner(file: string, catalog: Catalog): string {
  const counts = [
    `${catalog.tools.size} tools`,
    `${catalog.resources.size + catalog.templates.length} resources`,
    `${catalog.prompts.size} prompts`,
  ].join(', ');
  return [
    `serving ${relative(process.cwd(), file) || file} on stdio (${counts}).`,
    'An MCP client starts this command and speaks JSON-RPC on its stdin; press Ctrl-D to stop.',
    `Client config: { "command": "npx", "args": ["mcp-run", "${file}"] }`,
  ].join('\n  ');
}
