/**
 * The top self-time functions of a V8 CPU profile (`node --cpu-prof`), with locations mapped back
 * to the TypeScript sources through dist's source maps when they exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO } from './proc.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  readonly fn: string;
  /** file:line, in src/ when a source map says so. */
  readonly where: string;
  readonly selfMs: number;
  readonly percent: number;
}

const maps = new Map<string, SourceMap | undefined>();

function sourceMap(file: string): SourceMap | undefined {
  if (!maps.has(file)) {
    const mapFile = `${file}.map`;
    maps.set(
      file,
      existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined,
    );
  }
  return maps.get(file);
}

function location(frame: ProfileNode['callFrame']): string {
  if (!frame.url) return '';
  const file = frame.url.startsWith('file:') ? fileURLToPath(frame.url) : frame.url;
  const entry = sourceMap(file)?.findEntry(frame.lineNumber, frame.columnNumber) as
    | { originalSource?: string; originalLine?: number }
    | undefined;
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    // tsc writes sources relative to the map's folder.
    const source = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(file), entry.originalSource);
    return `${relative(REPO, source)}:${entry.originalLine + 1}`;
  }
  return `${file.startsWith('/') ? relative(REPO, file) : file}:${frame.lineNumber + 1}`;
}

/** Where a location belongs: an npm package, a folder of src/, node's internals or V8 itself. */
function owner(where: string): string {
  if (where === '') return '(V8: GC, native, program)';
  if (where.startsWith('node:')) return 'node internals (module loading, streams, http…)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where);
  if (pkg) return `npm ${pkg[1]}`;
  const src = /^(src\/[^/:]+(?:\/[^/:]+)?)\//.exec(where) ?? /^(src\/[^:]+)/.exec(where);
  return src ? src[1]! : where.replace(/:\d+$/, '');
}

/** Self time per function (summed over its call sites), highest first; idle time left out. */
export function hotSpots(
  profileFile: string,
  top = 20,
): { totalMs: number; spots: HotSpot[]; owners: { owner: string; selfMs: number; percent: number }[] } {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, { fn: string; where: string; us: number }>();
  let totalUs = 0;
  for (const [i, id] of profile.samples.entries()) {
    const node = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!node || node.callFrame.functionName === '(idle)') continue;
    totalUs += us;
    const where = location(node.callFrame);
    const fn = node.callFrame.functionName || '(anonymous)';
    const key = `${fn} ${where}`;
    const entry = self.get(key) ?? { fn, where, us: 0 };
    entry.us += us;
    self.set(key, entry);
  }
  const owners = new Map<string, number>();
  for (const s of self.values()) owners.set(owner(s.where), (owners.get(owner(s.where)) ?? 0) + s.us);
  const spots = [...self.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((s) => ({ fn: s.fn, where: s.where, selfMs: s.us / 1000, percent: (100 * s.us) / totalUs }));
  const byOwner = [...owners.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ owner: name, selfMs: us / 1000, percent: (100 * us) / totalUs }));
  return { totalMs: totalUs / 1000, spots, owners: byOwner };
}

export function formatHotSpots(file: string, top = 20): string {
  const { totalMs, spots, owners } = hotSpots(file, top);
  const pad = (percent: number, ms: number) =>
    `  ${percent.toFixed(1).padStart(5)}%  ${ms.toFixed(1).padStart(8)} ms`;
  const lines = [
    `${file}: ${Math.round(totalMs)} ms of samples (idle excluded)`,
    ' top self time by function:',
  ];
  for (const s of spots) lines.push(`${pad(s.percent, s.selfMs)}  ${s.fn}  ${s.where}`);
  lines.push(' self time by package / src folder:');
  for (const o of owners) lines.push(`${pad(o.percent, o.selfMs)}  ${o.owner}`);
  return lines.join('\n');
}
