/**
 * Which file a `shell` tool runs, decided once when the manifest loads. A bare name (`git`) is looked
 * up on mcp-run's own PATH, absolute folders only (a relative PATH entry such as `.` would let the
 * working folder choose the program). A path (`./bin/report.sh`) is resolved from the manifest folder
 * and must stay inside the root after following symlinks. Absolute paths elsewhere are refused: the
 * manifest names programs, it does not reach into the file system.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { isInside } from '../shared/paths.js';

export type Resolved = { readonly file: string } | { readonly reason: string };

export function resolveProgram(
  program: string,
  baseDir: string,
  realRoot: string,
  pathEnv = process.env.PATH ?? '',
): Resolved {
  if (program.includes('{{')) return { reason: 'the program must be written out, not a template' };
  if (!program.includes('/')) {
    for (const dir of pathEnv.split(delimiter)) {
      if (!isAbsolute(dir)) continue;
      const candidate = join(dir, program);
      if (isExecutableFile(candidate)) return { file: candidate };
    }
    return { reason: 'not found on PATH' };
  }
  let real: string;
  try {
    real = realpathSync(resolve(baseDir, program));
  } catch {
    return { reason: `no file at ${JSON.stringify(resolve(baseDir, program))}` };
  }
  if (!isInside(realRoot, real)) return { reason: `it lies outside ${JSON.stringify(realRoot)}` };
  if (!isExecutableFile(real)) return { reason: 'it is not an executable file (chmod +x?)' };
  return { file: real };
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
