/**
 * mcp-run as a library, for embedding and for tools built on it: the same pipeline the CLI runs.
 *
 * @example
 * ```ts
 * import { builtinKinds, CatalogRef, createProtocol, loadCatalog, serveHttp, StderrLogger } from 'mcp-run';
 * const log = new StderrLogger('info');
 * const { catalog } = await loadCatalog('mcp.yaml', builtinKinds(), log);
 * const protocol = createProtocol(new CatalogRef(catalog), { log, listChanged: false });
 * const server = await serveHttp(protocol, { port: 3000, log });
 * ```
 */
export { compileCatalog } from './catalog/compile.js';
export { type LoadedCatalog, loadCatalog } from './catalog/load.js';
export { Reloader, type ReloaderOptions } from './catalog/reload.js';
export * from './catalog/types.js';
export { type Diagnostic, formatDiagnostic, ManifestError, type Problem } from './errors.js';
export { builtinKinds } from './kinds/builtin.js';
export type * from './kinds/contract/kinds.js';
export { KindRegistry } from './kinds/registry.js';
export { StderrLogger } from './log.js';
export { loadManifest, loadManifestText } from './manifest/load.js';
export { createProtocol, type Protocol, type ProtocolOptions } from './protocol/server.js';
export { type HttpOptions, serveHttp } from './transports/http/server.js';
export { serveStdio } from './transports/stdio.js';
