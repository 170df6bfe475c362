/**
 * Wraps a kind's compiled tool with what every tool needs: argument validation (defaults applied),
 * the declared outputSchema enforced on structured results, and failures turned into results the
 * model can act on instead of protocol errors.
 */
import type { CompiledTool, Logger } from '../kinds/contracts.js';
import type { Validator } from './schemas.js';
import type { CallContext, CatalogTool, ToolDescriptor, ToolResult } from './types.js';

export function guardTool(
  descriptor: ToolDescriptor,
  compiled: CompiledTool,
  validateArgs: Validator,
  validateOutput: Validator | undefined,
  log: Logger,
): CatalogTool {
  const name = descriptor.name;
  return {
    descriptor,
    async call(args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
      // Defaults are written into the arguments: work on a copy, never on the caller's object.
      const values = structuredClone(args);
      const invalid = validateArgs(values);
      if (invalid) return errorResult(`Invalid arguments for tool ${name}: ${invalid}.`);
      let result: ToolResult;
      try {
        result = await compiled.run(values, ctx);
      } catch (err) {
        if (ctx.signal.aborted) return errorResult(`Tool ${name} was cancelled.`);
        log.error(`tool ${name} failed: ${(err as Error).stack ?? String(err)}`);
        return errorResult(`Tool ${name} failed: ${(err as Error).message}`);
      }
      if (validateOutput && !result.isError) {
        const mismatch = validateOutput(result.structuredContent);
        if (mismatch) {
          return errorResult(
            `Tool ${name} produced a result that does not match its outputSchema: ${mismatch}.`,
          );
        }
      }
      return result;
    },
  };
}

function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
