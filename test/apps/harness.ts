/** What the MCP Apps tests share: the fixture and the official v2 client, with or without the ui extension. */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REPO } from '../helpers/demo.js';

export const UI = 'io.modelcontextprotocol/ui';
export const VIEW_MIME = 'text/html;profile=mcp-app';
export const FIXTURE = join(REPO, 'test/fixtures/apps/mcp.yaml');
export const ERAS = ['2025-11-25', '2026-07-28'] as const;

export async function connect(url: string, era: string, withUi: boolean): Promise<Client> {
  const client = new Client({ name: 'apps-test', version: '1.0.0' }, {
    versionNegotiation: { mode: era === '2026-07-28' ? { pin: era } : 'legacy' },
    capabilities: withUi ? { extensions: { [UI]: { mimeTypes: [VIEW_MIME] } } } : {},
  } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
