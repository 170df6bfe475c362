/**
 * The three ways `mcp-run test` prints its results: `spec` for people (a line per case, the
 * failures with their diffs, one summary line), `tap` (TAP 13) and `junit` (JUnit XML) for CI.
 * A case that needs --record is no failure: a skip with its reason in TAP and JUnit, `○` for people.
 * A snapshot written on a first run is said beside its case in each.
 */
import { relative } from 'node:path';
import type { FileResult } from './runner.js';

export type Reporter = 'spec' | 'tap' | 'junit';

export interface Totals {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly needsRecord: number;
  readonly snapshotsWritten: number;
}

export function totals(files: readonly FileResult[]): Totals {
  const all = files.flatMap((f) => f.cases);
  return {
    passed: all.filter((c) => c.status === 'pass').length,
    failed: all.filter((c) => c.status === 'fail').length,
    skipped: all.filter((c) => c.status === 'skip').length,
    needsRecord: all.filter((c) => c.status === 'needs-record').length,
    snapshotsWritten: all.filter((c) => c.snapshotWritten !== undefined).length,
  };
}

/** `3 passed, 0 failed, 1 skipped`, then the other outcomes when there are any. */
export function summary(t: Totals): string {
  const extra = [
    t.needsRecord ? `, ${t.needsRecord} needs --record` : '',
    t.snapshotsWritten ? `, ${t.snapshotsWritten} snapshot${t.snapshotsWritten > 1 ? 's' : ''} written` : '',
  ];
  return `${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped${extra.join('')}`;
}

const MARK = { pass: '✓', fail: '✗', skip: '-', 'needs-record': '○' } as const;

export function format(reporter: Reporter, files: readonly FileResult[], cwd = process.cwd()): string {
  const name = (file: string) => {
    const near = relative(cwd, file);
    return near && !near.startsWith('..') ? near : file;
  };
  if (reporter === 'tap') return tap(files, name);
  if (reporter === 'junit') return junit(files, name);
  const out: string[] = [];
  for (const f of files) {
    out.push(name(f.file) + (f.skipped ? ` (skipped: ${f.skipped})` : ''));
    if (f.skipped) continue;
    if (f.error) out.push(`  ${f.error.split('\n').join('\n  ')}`);
    for (const c of f.cases) {
      const note =
        c.status === 'needs-record' ? ': needs --record' : c.snapshotWritten ? ': snapshot written' : '';
      out.push(`  ${MARK[c.status]} ${c.name} (${c.ms} ms)${note}`);
      for (const m of c.status === 'fail' || c.status === 'needs-record' ? c.messages : [])
        out.push(`      ${m.split('\n').join('\n      ')}`);
    }
    for (const w of f.wrote) out.push(`  wrote ${name(w)}`);
  }
  out.push('', summary(totals(files)));
  return `${out.join('\n')}\n`;
}

function tap(files: readonly FileResult[], name: (file: string) => string): string {
  const cases = files.flatMap((f) =>
    f.cases.map((c) => ({
      ...c,
      ...(f.error && { messages: [f.error] }),
      title: `${name(f.file)} > ${c.name}`,
    })),
  );
  const out = ['TAP version 13', `1..${cases.length}`];
  cases.forEach((c, i) => {
    const n = i + 1;
    if (c.status === 'skip') out.push(`ok ${n} - ${c.title} # SKIP ${c.messages[0] ?? ''}`);
    else if (c.status === 'needs-record')
      out.push(`ok ${n} - ${c.title} # SKIP needs --record: ${oneLine(c.messages)}`);
    else if (c.status === 'pass') out.push(`ok ${n} - ${c.title}`);
    else {
      out.push(`not ok ${n} - ${c.title}`, '  ---', '  message: |');
      for (const line of c.messages.join('\n').split('\n')) out.push(`    ${line}`);
      out.push('  ...');
    }
    if (c.snapshotWritten) out.push(`# snapshot written to ${name(c.snapshotWritten)}`);
  });
  const t = totals(files);
  out.push(`# pass ${t.passed}`, `# fail ${t.failed}`, `# skip ${t.skipped}`);
  if (t.needsRecord) out.push(`# needs --record ${t.needsRecord}`);
  return `${out.join('\n')}\n`;
}

function junit(files: readonly FileResult[], name: (file: string) => string): string {
  const t = totals(files);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-run test" tests="${t.passed + t.failed + t.skipped + t.needsRecord}" failures="${t.failed}" skipped="${t.skipped + t.needsRecord}">`,
  ];
  for (const f of files) {
    const ft = totals([f]);
    const seconds = (f.cases.reduce((s, c) => s + c.ms, 0) / 1000).toFixed(3);
    out.push(
      `  <testsuite name="${xml(name(f.file))}" tests="${f.cases.length}" failures="${ft.failed}" skipped="${ft.skipped + ft.needsRecord}" time="${seconds}">`,
    );
    for (const c of f.cases) {
      const open = `    <testcase classname="${xml(name(f.file))}" name="${xml(c.name)}" time="${(c.ms / 1000).toFixed(3)}"`;
      if (c.status === 'pass' && c.snapshotWritten)
        out.push(
          `${open}>`,
          `      <system-out>snapshot written to ${xml(name(c.snapshotWritten))}</system-out>`,
          '    </testcase>',
        );
      else if (c.status === 'pass') out.push(`${open}/>`);
      else if (c.status === 'skip')
        out.push(`${open}>`, `      <skipped message="${xml(c.messages[0] ?? '')}"/>`, '    </testcase>');
      else if (c.status === 'needs-record')
        out.push(
          `${open}>`,
          `      <skipped message="${xml(`needs --record: ${oneLine(c.messages)}`)}"/>`,
          '    </testcase>',
        );
      else {
        const messages = f.error ? [f.error] : c.messages;
        const text = messages.join('\n');
        out.push(
          `${open}>`,
          `      <failure message="${xml(messages[0]?.split('\n')[0] ?? 'failed')}">${xml(text)}</failure>`,
          '    </testcase>',
        );
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** The reasons of a needs-record case on one line, for a TAP directive or an XML attribute. */
const oneLine = (messages: readonly string[]) => messages.join('; ').replace(/\s*\n\s*/g, '; ');

const xml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 cannot carry these at all
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
