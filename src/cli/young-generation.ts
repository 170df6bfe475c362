/**
 * The size of V8's young generation for the mcp-run process. By default V8 doubles the semi-spaces
 * (where new objects are allocated) from 1 MB up to 16 MB each whenever many objects survive a
 * scavenge, and loading a large manifest makes nearly everything survive: at 10,000 tools the young
 * generation reached 32 MB (two 16 MB semi-spaces), all of it resident, and stayed there while
 * serving. That was about a fifth of the process's peak RSS. Kept at its initial size, the load
 * promotes what it keeps a little earlier and costs the same CPU time (`validate` of 10,000 tools:
 * 1.27 s with it, 1.29 s without; the peak RSS 145 → 123 MB).
 *
 * The maximum (`--max-semi-space-size`) can only be given when node starts; the growth factor is
 * read each time V8 considers growing, so setting it here, before any manifest is read, keeps the
 * semi-spaces at their initial size. A user who sizes the young generation on node's command line
 * (or in NODE_OPTIONS) keeps that choice.
 */
import { setFlagsFromString } from 'node:v8';

const SIZED_BY_USER = /--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor/;

export function keepYoungGenerationSmall(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): boolean {
  if (execArgv.some((arg) => SIZED_BY_USER.test(arg)) || SIZED_BY_USER.test(nodeOptions)) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
