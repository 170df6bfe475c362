/**
 * Processes as `ps` sees them, for tests that check a cancelled call's process tree is gone: the
 * running `sh` of a shell tool found by a tag in its arguments, and its children.
 */
import { execFileSync } from 'node:child_process';

function psLines(): string[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' }).split('\n');
}

/** The running sh of a call with this tag, and its children (the sleep). */
export function treeOf(tag: string): number[] {
  const rows = psLines()
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 4 && !cols[2]!.startsWith('Z'));
  const root = rows.find((cols) => cols.slice(3).join(' ').includes(tag) && /(^|\/)sh$/.test(cols[3]!));
  if (root === undefined) return [];
  const pid = Number(root[0]);
  return [pid, ...rows.filter((cols) => Number(cols[1]) === pid).map((cols) => Number(cols[0]))];
}

/** Every running sh of calls with this tag, and their children (several calls may share a tag). */
export function treesOf(tag: string): number[] {
  const rows = psLines()
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 4 && !cols[2]!.startsWith('Z'));
  const roots = rows
    .filter((cols) => cols.slice(3).join(' ').includes(tag) && /(^|\/)sh$/.test(cols[3]!))
    .map((cols) => Number(cols[0]));
  return [...roots, ...rows.filter((cols) => roots.includes(Number(cols[1]))).map((cols) => Number(cols[0]))];
}

/** Whether the process runs (a zombie does not). */
export function alive(pid: number): boolean {
  const row = psLines().find((line) => line.trim().split(/\s+/)[0] === String(pid));
  return row !== undefined && !row.trim().split(/\s+/)[2]!.startsWith('Z');
}
