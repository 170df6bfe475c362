import type { ServeOptions } from './serve.js';

/**
 * The serve options of `mcp-run <manifest>` given no flags. The option parser (program.ts) takes
 * its defaults from here, and main.ts serves with them directly when there are no flags to parse.
 */
export const SERVE_DEFAULTS = {
  logLevel: 'info',
  watch: true,
  port: 3000,
  host: '127.0.0.1',
  path: '/mcp',
  allowedHost: [] as string[],
  allowedOrigin: [] as string[],
  logFormat: 'text',
} as const satisfies ServeOptions;
