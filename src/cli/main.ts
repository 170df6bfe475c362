#!/usr/bin/env node
/**
 * The `mcp-run` command line. Each command is a thin shell over the library: parse flags, call one
 * function, print, exit with a documented code. Exit codes: 0 success, 1 a manifest with errors,
 * 2 bad usage.
 */
import { Command, Option } from 'commander';
import { readPackageVersion } from './package-version.js';
import { schemaCommand } from './schema.js';
import { serveCommand } from './serve.js';
import { validateCommand } from './validate.js';

const program = new Command('mcp-run')
  .description(
    'Serve one YAML manifest as an MCP server: SQL tools, file resources and prompt templates, no code.',
  )
  .version(readPackageVersion(), '-v, --version')
  .showSuggestionAfterError()
  .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) })
  .exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));

program
  .argument('[manifest]', 'the manifest to serve', 'mcp.yaml')
  .addOption(
    new Option('--log-level <level>', 'what mcp-run logs to stderr')
      .choices(['debug', 'info', 'warn', 'error', 'silent'])
      .default('info'),
  )
  .addHelpText(
    'after',
    `
Serves on stdio: the MCP client starts mcp-run and talks JSON-RPC on its stdin/stdout; logs go to stderr.

Examples:
  $ mcp-run                        serve ./mcp.yaml
  $ mcp-run shop.yaml --log-level debug

A desktop or IDE client's config:
  { "mcpServers": { "shop": { "command": "npx", "args": ["mcp-run", "/abs/path/mcp.yaml"] } } }`,
  )
  .action(serveCommand);

program
  .command('validate')
  .description('check a manifest and print every error with its position; exit 1 when there is any')
  .argument('[manifest]', 'the manifest to check', 'mcp.yaml')
  .option('--json', 'print the errors as JSON for machines')
  .addHelpText('after', '\nExamples:\n  $ mcp-run validate\n  $ mcp-run validate shop.yaml --json')
  .action(validateCommand);

program
  .command('schema')
  .description("print the manifest's JSON Schema (editors use it for completion and checks)")
  .addHelpText('after', '\nExample:\n  $ mcp-run schema > schemas/manifest.schema.json')
  .action(schemaCommand);

await program.parseAsync();
