/** Runs the built CLI as a user would, and captures what it prints and how it exits. */
import { execFile, spawnSync } from 'node:child_process';
import { CLI } from './demo.js';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** As `runCli`, without blocking this process: for a CLI that talks to a server the test runs. */
export function runCliAsync(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd, env: options.env ?? process.env, encoding: 'utf8', timeout: 30_000 },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}
