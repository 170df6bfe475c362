/**
 * CommonJS files of the build run with the V8 code cache the build wrote beside them
 * (`<file>.v8-cache`). The precompiled manifest validators are a few large functions, and
 * compiling them was the largest part of what a start does after node's own start-up. Node 22.1+
 * has a compile cache of its own (bin.cts turns it on); this also serves Node 20.
 *
 * V8 refuses a cache made by another V8 or under other flags (`cachedDataRejected`), and the file
 * is then compiled as usual: the cache only ever saves time. The build writes it under V8's own
 * flags, which the command line changes only to load a large manifest (cli/young-generation.cts).
 */
import { isAscii } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

const cacheOf = (file: string): string => `${file}.v8-cache`;

/**
 * The file's text. The build writes its files in printable ASCII (util/ascii-source.ts), which
 * reads as Latin-1 with a copy of the bytes, where decoding UTF-8 costs about a millisecond per
 * megabyte; a file with other bytes is decoded as UTF-8.
 */
function readSource(file: string): string {
  const bytes = readFileSync(file);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

function script(file: string, cachedData?: Buffer): Script {
  // The wrapper node's own loader gives a CommonJS module, and the file's import() (hostImport).
  const source = `(function (exports, require, module, __filename, __dirname, __hostImport) {${readSource(file)}\n})`;
  return new Script(source, { filename: file, ...(cachedData && { cachedData }) });
}

/**
 * `import()` for the file's code, as a sixth argument of its wrapper (`__hostImport`): on Node 20 a
 * function V8 compiles after its script came from a code cache has lost the script's dynamic-import
 * callback, so an `import()` written in the file itself would fail there ("A dynamic import callback
 * was not specified"). The CLI's bundle calls this instead (scripts/bundle-cli.mjs).
 */
const hostImport = (specifier: string): Promise<unknown> => import(specifier);

function run(compiled: Script, file: string): unknown {
  const module = { exports: {} as unknown };
  const wrapper = compiled.runInThisContext() as (...args: unknown[]) => void;
  wrapper(module.exports, createRequire(file), module, file, dirname(file), hostImport);
  return module.exports;
}

/**
 * `require(file)` for a file of the build, with its code cache when V8 takes it. `writeAtExit` (the
 * build's own start of the command line) writes the cache anew when the process exits: it then
 * holds every function that start compiled, not only the file's top level.
 */
export function requireWithCodeCache(file: string, options: { writeAtExit?: boolean } = {}): unknown {
  let cachedData: Buffer | undefined;
  try {
    if (!options.writeAtExit) cachedData = readFileSync(cacheOf(file));
  } catch {
    // No cache beside it (a build from before, a copy): compiled as usual.
  }
  const compiled = script(file, cachedData);
  if (options.writeAtExit)
    process.once('exit', () => writeFileSync(cacheOf(file), compiled.createCachedData()));
  return run(compiled, file);
}

/** Whether V8 refuses `file`'s cache here (another V8, other flags, or no cache at all). */
export function codeCacheRejected(file: string): boolean {
  try {
    return script(file, readFileSync(cacheOf(file))).cachedDataRejected === true;
  } catch {
    return true;
  }
}

/**
 * The build step: runs `file`, lets `warm` call into what it exports (V8 compiles a function when
 * it first runs, and the cache holds what was compiled), then writes the cache beside it.
 */
export function writeCodeCache(file: string, warm: (exports: unknown) => void): void {
  const compiled = script(file);
  warm(run(compiled, file));
  writeFileSync(cacheOf(file), compiled.createCachedData());
}
