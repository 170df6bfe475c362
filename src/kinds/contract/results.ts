/** The result builders every kind shares: a failure the model can act on is a result, not a throw. */
import type { ToolResult } from './types.js';

/** One text block with `isError: true`; `text` is a sentence for the model. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
