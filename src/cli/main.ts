#!/usr/bin/env node
/**
 * The `mcp-run` command line. A client config runs `mcp-run <manifest>.yaml` for every session,
 * with nothing else to parse: that start goes straight to serving, with the defaults the option
 * parser would give. Every other command line goes to the option parser (program.ts).
 */
import nodeModule from 'node:module';
import { keepYoungGenerationSmall } from './young-generation.js';

// Before any manifest is read: a large one otherwise grows the young generation to 32 MB for good.
keepYoungGenerationSmall();

// Node 22.1+ keeps V8's compiled code of every module loaded after this line (all of the command's
// own code: it loads below), so the next start skips compiling it. Node 20 has no cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const args = process.argv.slice(2);
if (args.length === 1 && /^[^-].*\.ya?ml$/i.test(args[0]!)) {
  const [{ serveCommand }, { SERVE_DEFAULTS }] = await Promise.all([
    import('./serve.js'),
    import('./serve-defaults.js'),
  ]);
  await serveCommand(args[0]!, SERVE_DEFAULTS);
} else {
  const { commandLine } = await import('./program.js');
  await commandLine().parseAsync();
}
