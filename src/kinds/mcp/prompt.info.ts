/** Prompt kind `mcp`: its fields (./prompt.ts is the kind). Docs: docs/upstream-mcp.md. */
import type { KindInfo } from '../contract/kinds.js';

export const mcpPromptInfo: KindInfo = {
  kind: 'mcp',
  description:
    "One prompt of an upstream MCP server (an `mcp` source), served under this entry's name; its arguments are the upstream's as read when the source opened.",
  configSchema: {
    type: 'object',
    properties: {
      source: { type: 'string', minLength: 1, description: 'An `mcp` source.' },
      prompt: { type: 'string', minLength: 1, description: 'The prompt’s name upstream.' },
      title: { type: 'string' },
      description: { type: 'string' },
    },
    required: ['source', 'prompt'],
    additionalProperties: false,
  },
};
