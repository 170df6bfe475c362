/**
 * Contender: the official v2 server SDK (`@modelcontextprotocol/server` 2.4.0) on stdio, as its docs
 * serve it: `serveStdio(factory)`, which pins one `McpServer` per connection (both eras).
 *
 * Usage: node bench/servers/sdk-v2-stdio.mjs [--cheap] [--sql file] [--many n]
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { defineTools, registerAll } from './sdk-tools.mjs';

const tools = await defineTools(process.argv.slice(2), z, (shape) => z.object(shape));
serveStdio(() => registerAll(new McpServer({ name: 'bench-sdk-v2', version: '1.0.0' }), tools));
