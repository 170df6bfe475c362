/**
 * Where mcp-run writes the data files it creates (a SQLite database made from its seed), when the
 * place the manifest names is not the user's to write: mcp-run never writes into an installed package.
 *
 * A file goes where the manifest says, as always, when its folder is the user's: a clone, a project,
 * a folder `mcp-run init` wrote. It goes to the data folder instead when that folder lies inside a
 * `node_modules` folder (an npm or npx install: a later install or upgrade replaces it, and the
 * package is shared by every user of the machine), or is read-only (no write bit for anyone, as a
 * package made read-only, a Nix store or an image's layer has it; root could write it anyway).
 *
 * The data folder: `$XDG_DATA_HOME/mcp-run/<server name>`, else `~/.local/share/mcp-run/<server name>`
 * (on Windows `%LOCALAPPDATA%\mcp-run\<server name>`). Delete it to start again from the seed.
 */
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';

/** The data folder of the server `server` (its manifest's `server.name`). */
export function dataFolder(
  server: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const root =
    env.XDG_DATA_HOME || (platform === 'win32' && env.LOCALAPPDATA) || join(homedir(), '.local', 'share');
  // The name becomes one folder: no separator, no `..`, nothing a file system refuses.
  const safe = server.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^\.+/, '') || 'mcp-run';
  return join(root, 'mcp-run', safe);
}

/**
 * Where a data file the manifest names at `file` (absolute) is created: there, or in `dataDir` under
 * its own name when `file`'s folder belongs to an installed package. A file that already exists
 * stays where it is (reading it writes nothing).
 */
export function createdFilePlace(file: string, dataDir: string): string {
  if (existsSync(file)) return file;
  return isInstalledFolder(dirname(file)) ? join(dataDir, basename(file)) : file;
}

function isInstalledFolder(folder: string): boolean {
  // A folder that does not exist is the user's to create (or to be told about), as before.
  if (!existsSync(folder)) return false;
  const real = realpathSync(folder);
  if (`${real}${sep}`.includes(`${sep}node_modules${sep}`)) return true;
  try {
    accessSync(real, constants.W_OK);
  } catch {
    return true;
  }
  return (statSync(real).mode & 0o222) === 0;
}
