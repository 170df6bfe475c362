/**
 * The `mcp-run` command line, once bin.cts has set up the process. A client config runs
 * `mcp-run <manifest>.yaml` for every session, with nothing else to parse: that start goes straight
 * to serving, with the defaults the option parser would give. Every other command line goes to the
 * option parser (program.ts).
 */
import { whenLoadIsLarge } from '../util/large-load.js';
import {
  collectOftenWhileLoading,
  keepYoungGenerationSmall,
  stopCollectingOften,
} from './young-generation.cjs';

export async function run(args: readonly string[]): Promise<void> {
  // A large manifest (or OpenAPI description) is loaded with the young generation kept small and
  // the old one collected often, until the server's first load is compiled; a small one leaves
  // V8's flags alone (young-generation.cts says why).
  whenLoadIsLarge(() => {
    keepYoungGenerationSmall();
    collectOftenWhileLoading();
  }, stopCollectingOften);
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
}
