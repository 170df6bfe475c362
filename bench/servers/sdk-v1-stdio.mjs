/**
 * Contender: the official v1 SDK (`@modelcontextprotocol/sdk` 1.32.2) on stdio, as its docs serve
 * it: one `McpServer` connected to a `StdioServerTransport`. 2025 era only.
 *
 * Usage: node bench/servers/sdk-v1-stdio.mjs [--cheap] [--sql file] [--many n]
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';
import { defineTools, registerAll } from './sdk-tools.mjs';

const tools = await defineTools(process.argv.slice(2), z, (shape) => shape);
const server = registerAll(new McpServer({ name: 'bench-sdk-v1', version: '1.0.0' }), tools);
await server.connect(new StdioServerTransport());
