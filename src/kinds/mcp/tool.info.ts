/** Tool kind `mcp`: its fields (./tool.ts is the kind). Docs: docs/upstream-mcp.md. */
import type { KindInfo } from '../contract/kinds.js';
import { outputSchema } from '../shared/output-shape.js';

export const mcpToolInfo: KindInfo = {
  kind: 'mcp',
  description:
    "One tool of an upstream MCP server (an `mcp` source), served under this entry's name. The description, annotations and input schema are the upstream's as read when the source opened, unless this entry declares them.",
  configSchema: {
    type: 'object',
    properties: {
      source: { type: 'string', minLength: 1, description: 'An `mcp` source.' },
      tool: { type: 'string', minLength: 1, description: 'The tool’s name upstream.' },
      pin: {
        type: 'object',
        description:
          'Upstream arguments fixed here: hidden from the model (left out of the input schema), always sent with these values; a call that sets one is refused.',
      },
      output: outputSchema(
        "Shapes the upstream's structured result (or a text result that is JSON) before the model sees it, as on http tools.",
      ),
    },
    required: ['source', 'tool'],
    additionalProperties: false,
  },
};
