/** Resource kind `mcp`: its fields (./resource.ts is the kind). Docs: docs/upstream-mcp.md. */
import type { KindInfo } from '../contract/kinds.js';

export const mcpResourceInfo: KindInfo = {
  kind: 'mcp',
  description:
    'One resource or resource template of an upstream MCP server (an `mcp` source), served at its upstream URI; read through the source on each read.',
  configSchema: {
    type: 'object',
    properties: {
      source: { type: 'string', minLength: 1, description: 'An `mcp` source.' },
      uri: { type: 'string', minLength: 1, description: 'The resource’s URI upstream, served as it is.' },
      uriTemplate: {
        type: 'string',
        minLength: 1,
        description:
          'Instead of `uri`: a resource template upstream (`{name}` and `{+name}` variables), served as it is; every URI it matches is read upstream.',
      },
      title: { type: 'string' },
      description: { type: 'string' },
    },
    required: ['source'],
    additionalProperties: false,
  },
};
