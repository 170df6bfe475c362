#!/usr/bin/env node
/**
 * The `mcp-run` command line's entry. It sets up the process, then runs the command line (run.ts)
 * from its bundle: the build bundles it into one CommonJS file (scripts/bundle-cli.mjs), which
 * starts with V8's compiled code of a previous start rather than compiling ~200 modules again:
 *
 * - Node 22.1+ keeps that code itself (`module.enableCompileCache`, in the system's temp folder).
 * - Node 20 has no such cache for modules: the bundle runs with the code cache the build wrote
 *   beside it (util/code-cache.ts), made by a start of the command line under these same flags.
 *
 * Without a bundle (running from src/, a tsc-only build) the modules load one by one.
 */
import { existsSync } from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { requireWithCodeCache } from '../util/code-cache.js';
import { keepYoungGenerationSmall } from './young-generation.js';

type Cli = typeof import('./run.js');

/** Set by the build's own start (scripts/bundle-cli.mjs): write the code cache when it exits. */
const WRITE_CODE_CACHE_ENV = 'MCP_RUN_BUILD_CODE_CACHE';

// Before any manifest is read: a large one otherwise grows the young generation to 32 MB for good.
// Also before the bundle compiles: V8 takes a code cache only under the flags it was made with.
keepYoungGenerationSmall();

async function loadCli(): Promise<Cli> {
  const bundle = fileURLToPath(new URL('./mcp-run.cjs', import.meta.url));
  if (!existsSync(bundle)) return import('./run.js');
  const building = process.env[WRITE_CODE_CACHE_ENV] === '1';
  const enableCompileCache = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (enableCompileCache && !building) {
    enableCompileCache();
    return createRequire(import.meta.url)(bundle) as Cli;
  }
  return requireWithCodeCache(bundle, { writeAtExit: building }) as Cli;
}

await (await loadCli()).run(process.argv.slice(2));
