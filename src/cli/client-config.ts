/**
 * The config a desktop or IDE client needs to start this server, printed so it works from where
 * mcp-run is installed: the absolute path of this Node (`process.execPath`), of this CLI's
 * dist/cli/bin.cjs and of the manifest, so a client that starts servers from a folder of its own
 * choosing (they all do) finds everything. `mcp-run config --client NAME` prints the block each
 * common client reads; the stdio banner and `--help` print the generic one.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { yamlLib } from '../manifest/yaml-lib.js';
import { envReferences } from './env-refs.js';

export const CLIENTS = ['claude-desktop', 'vscode', 'cursor', 'generic'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** Where each client reads its config from, said beside the block. */
const WHERE: Readonly<Record<ClientName, string>> = {
  'claude-desktop':
    'claude_desktop_config.json (Settings → Developer → Edit Config); merge into its "mcpServers"',
  vscode: '.vscode/mcp.json in the workspace (or the user mcp.json); merge into its "servers"',
  cursor: '~/.cursor/mcp.json, or .cursor/mcp.json in the project; merge into its "mcpServers"',
  generic: "a client's stdio server entry: the command to start, and its arguments",
};

export interface StdioLaunch {
  readonly command: string;
  readonly args: readonly string[];
}

/** This Node, this CLI and the manifest, all absolute. */
export function stdioLaunch(manifest: string): StdioLaunch {
  const cli = realpathSync(fileURLToPath(new URL('./bin.cjs', import.meta.url)));
  return { command: process.execPath, args: [cli, resolve(manifest)] };
}

/** The config block for one client, as JSON text. */
export function clientConfig(manifest: string, client: ClientName, name = serverName(manifest)): string {
  const launch = stdioLaunch(manifest);
  const entry = { command: launch.command, args: launch.args };
  const block =
    client === 'generic'
      ? entry
      : client === 'vscode'
        ? { servers: { [name]: { type: 'stdio', ...entry } } }
        : { mcpServers: { [name]: entry } };
  return JSON.stringify(block, null, 2);
}

/** The one-line form, for banners: `{"command":"…","args":[…]}`. */
export function oneLineConfig(manifest: string): string {
  const launch = stdioLaunch(manifest);
  return JSON.stringify({ command: launch.command, args: launch.args });
}

/** The manifest's `server.name`, else its folder's name: the key a client lists the server under. */
export function serverName(manifest: string): string {
  try {
    // yaml loads here, not when serve imports this file for its banner.
    const data = yamlLib().parse(readFileSync(manifest, 'utf8')) as { server?: { name?: unknown } } | null;
    if (typeof data?.server?.name === 'string' && data.server.name.trim() !== '') return data.server.name;
  } catch {
    // Unreadable or not YAML: the folder's name still names it.
  }
  return basename(dirname(resolve(manifest))) || 'mcp-run';
}

/** `mcp-run config [manifest] --client NAME`: the block on stdout; where it goes and what to add on stderr. */
export function configCommand(manifest: string, options: { client: ClientName }): void {
  process.stdout.write(`${clientConfig(manifest, options.client)}\n`);
  process.stderr.write(`Paste into ${WHERE[options.client]}.\n`);
  let needed: readonly string[] = [];
  try {
    needed = envReferences(readFileSync(manifest, 'utf8')).required;
  } catch {
    process.stderr.write(`mcp-run: cannot read ${manifest}; the config names it anyway\n`);
  }
  if (needed.length > 0)
    process.stderr.write(
      `The manifest reads ${needed.join(', ')}: set ${needed.length > 1 ? 'them' : 'it'} in the client's "env" block for this server, or in its environment.\n`,
    );
}
