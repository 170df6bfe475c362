/**
 * What was skipped and why, for the end of `npm test` and of `.ci/run`: the lines that
 * skip-reporter.mjs writes (one per skipped test or suite), grouped by reason, most frequent first.
 * Also a command, `node --import tsx test/helpers/skip-summary.ts <title> <file>...`, that prints
 * the summary of several such files added up (.ci/run passes the Node 20 and the Node 24 run's).
 */
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** One skipped test or suite, as skip-reporter.mjs writes it. */
export interface SkipRecord {
  /** The test's `skip` option or `t.skip(reason)` argument: a reason, or true when none was given. */
  readonly skip: unknown;
  /** A skipped suite is one record; the runner's "skipped" count does not count its tests. */
  readonly type: 'test' | 'suite';
  readonly name?: string;
  readonly file?: string;
}

export const NO_REASON = '(no reason given)';

/** One reason: no reason (true) or a blank one becomes NO_REASON; spacing is collapsed, a final period dropped. */
export function normaliseReason(skip: unknown): string {
  if (typeof skip !== 'string') return NO_REASON;
  const text = skip.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return text === '' ? NO_REASON : text;
}

export interface SkipGroup {
  readonly reason: string;
  readonly tests: number;
  readonly suites: number;
}

/** Records grouped by reason, the largest group first (ties by reason, so the order is stable). */
export function summarise(records: Iterable<SkipRecord>): SkipGroup[] {
  const groups = new Map<string, { tests: number; suites: number }>();
  for (const record of records) {
    const reason = normaliseReason(record.skip);
    const group = groups.get(reason) ?? { tests: 0, suites: 0 };
    if (record.type === 'suite') group.suites++;
    else group.tests++;
    groups.set(reason, group);
  }
  return [...groups]
    .map(([reason, counts]) => ({ reason, ...counts }))
    .sort((a, b) => b.tests + b.suites - (a.tests + a.suites) || (a.reason < b.reason ? -1 : 1));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The summary's lines. None starts with "# " or "ℹ ", so the runner's own "# pass N" / "ℹ skipped N"
 * lines stay the last of their kind for whoever greps them (.ci/run does).
 */
export function formatSummary(groups: readonly SkipGroup[], title = 'Skipped'): string[] {
  if (groups.length === 0) return [`${title}: nothing.`];
  const counts = groups.map((g) =>
    [g.tests ? plural(g.tests, 'test') : '', g.suites ? plural(g.suites, 'suite') : '']
      .filter(Boolean)
      .join(', '),
  );
  const width = Math.max(...counts.map((c) => c.length));
  const lines = groups.map((g, i) => `  ${counts[i]!.padStart(width)}: ${g.reason}`);
  const suites = groups.some((g) => g.suites > 0)
    ? ' (a skipped suite counts once; the tests in it are not run or counted)'
    : '';
  return [`${title}, by reason${suites}:`, ...lines];
}

/** The records of skip-reporter.mjs files; a file that is missing (its run never started) adds nothing. */
export function readRecords(files: readonly string[]): SkipRecord[] {
  return files
    .filter((file) => existsSync(file))
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SkipRecord);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [title, ...files] = process.argv.slice(2);
  if (title === undefined || files.length === 0) {
    console.error('usage: skip-summary.ts <title> <reporter file>...');
    process.exit(2);
  }
  console.log(formatSummary(summarise(readRecords(files)), title).join('\n'));
}
