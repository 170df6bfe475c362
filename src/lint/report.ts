/** The text rendering of a lint report: findings grouped by entry, then the token cost. */
import type { LintFinding, LintReport } from './lint.js';

/** How many of the largest tools the summary names. */
const LARGEST = 5;

export function formatReport(report: LintReport, shownFile: string): string {
  const out: string[] = [];
  const groups = new Map<string, LintFinding[]>();
  for (const f of report.findings) {
    const key = `${f.section}.${f.entry}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  for (const [entry, findings] of groups) {
    out.push(entry);
    for (const f of findings) {
      const where = f.line === undefined ? shownFile : `${shownFile}:${f.line}:${f.col}`;
      out.push(`  ${f.level}[${f.code}] ${where}`, `    ${f.message}`, `    fix: ${f.hint}`);
    }
    out.push('');
  }
  const { total, tools, tokenizer, listed, searchMode } = report.tokens;
  const estimated = tokenizer === 'estimate';
  const about = estimated ? '~' : '';
  const largest = tools
    .slice(0, LARGEST)
    .map((t) => `${t.name} ${about}${t.tokens}`)
    .join(', ');
  const how = estimated ? 'estimated' : tokenizer;
  const what = searchMode
    ? `${count(listed, 'tool')} listed in search mode (of ${tools.length})`
    : count(tools.length, 'tool');
  out.push(
    `tools/list: ${about}${total} tokens (${how}) for ${what}, sent to the model every turn${largest ? `; largest: ${largest}` : ''}`,
  );
  const silenced = report.suppressed.length ? `, ${report.suppressed.length} silenced` : '';
  out.push(
    report.findings.length === 0
      ? `${shownFile}: clean${silenced}`
      : `${shownFile}: ${count(report.errors, 'error')}, ${count(report.warnings, 'warning')}${silenced}`,
  );
  return `${out.join('\n')}\n`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
