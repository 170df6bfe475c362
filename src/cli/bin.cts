#!/usr/bin/env node
/**
 * The `mcp-run` command line's entry (package.json `bin`). It runs the command line (run.ts) from
 * its bundle: the build bundles it into one CommonJS file (scripts/bundle-cli.mjs), which starts
 * with V8's compiled code of a previous start rather than compiling ~200 modules again:
 *
 * - Node 22.1+ keeps that code itself (`module.enableCompileCache`, in the system's temp folder).
 * - Node 20 has no such cache for modules: the bundle runs with the code cache the build wrote
 *   beside it (util/code-cache.cts), made by a start of the command line. V8 takes it only under the
 *   flags it was made with: V8's own, which a start keeps unless it loads a large manifest (run.ts).
 *
 * CommonJS, as the module it loads first: an ES module entry costs node's ES module loader,
 * and each of node's own modules it imports an ES module facade, some 4 ms of every start before
 * the first line runs. main.ts is the ES module entry of earlier installs (`node dist/cli/main.js`).
 *
 * Without a bundle (running from src/, a tsc-only build) the modules load one by one.
 */
import { existsSync } from 'node:fs';

import nodeModule = require('node:module');

import { join } from 'node:path';
import { requireWithCodeCache } from '../util/code-cache.cjs';

type Cli = typeof import('./run.js');

/** Set by the build's own start (scripts/bundle-cli.mjs): write the code cache when it exits. */
const WRITE_CODE_CACHE_ENV = 'MCP_RUN_BUILD_CODE_CACHE';

function loadCli(): Cli | Promise<Cli> {
  const bundle = join(__dirname, 'mcp-run.cjs');
  if (!existsSync(bundle)) return import('./run.js');
  const building = process.env[WRITE_CODE_CACHE_ENV] === '1';
  const enableCompileCache = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (enableCompileCache && !building) {
    enableCompileCache();
    return require(bundle) as Cli;
  }
  return requireWithCodeCache(bundle, { writeAtExit: building }) as Cli;
}

void Promise.resolve(loadCli()).then((cli) => cli.run(process.argv.slice(2)));
