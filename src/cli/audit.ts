/**
 * `mcp-run audit FILE…`: the records of audit trail files (server.audit), filtered, and their
 * hash chains verified (governance/audit/query.ts). Human output goes through escapeControls: every
 * field of a record but its timing came from a caller. `--json` prints the matching lines as
 * written, but for controls and bidi overrides, escaped as `\uXXXX` (the same JSON value). Exit codes: 0 the chain holds, 1 it is broken (each break named by file and line),
 * 2 bad usage, 3 a file cannot be read.
 */

import { type ChainBreak, type ScanReport, scanAudit } from '../governance/audit/query.js';
import type { AuditDecision } from '../governance/audit/record.js';
import { escapeControls, escapeJsonControls } from './print.js';

export interface AuditOptions {
  /** An ISO time, or a duration back from now: `30m`, `12h`, `7d`. */
  readonly since?: string;
  readonly caller?: string;
  readonly entry?: string;
  readonly decision?: AuditDecision;
  readonly json?: boolean;
  /** Verify only: print the summary and the breaks, no records. */
  readonly verify?: boolean;
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an ISO time, or a duration back from now. */
export function sinceTime(value: string, now = Date.now()): number | undefined {
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago !== null) return now - Number(ago[1]) * (UNIT_MS[ago[2] as string] ?? 0);
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

export async function auditCommand(files: string[], options: AuditOptions): Promise<void> {
  const since = options.since === undefined ? undefined : sinceTime(options.since);
  if (options.since !== undefined && since === undefined) {
    process.stderr.write(
      `mcp-run: --since takes an ISO time or a duration such as 12h, not ${JSON.stringify(options.since)}\n`,
    );
    process.exitCode = 2;
    return;
  }
  // A reader that stops early (`| head`) ends the listing, not with a crash.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  const print = (text: string) => process.stdout.write(text);
  let report: ScanReport;
  try {
    report = await scanAudit(
      files,
      {
        ...(since !== undefined && { since }),
        ...(options.caller !== undefined && { caller: options.caller }),
        ...(options.entry !== undefined && { entry: options.entry }),
        ...(options.decision !== undefined && { decision: options.decision }),
      },
      {
        record: (line, record) => {
          if (options.verify) return;
          print(options.json ? `${escapeJsonControls(line)}\n` : `${formatRecord(record)}\n`);
        },
        broken: (problem) => process.stderr.write(`${formatBreak(problem)}\n`),
      },
    );
  } catch (err) {
    process.stderr.write(`mcp-run: cannot read the audit files: ${escapeControls((err as Error).message)}\n`);
    process.exitCode = 3;
    return;
  }
  for (const note of report.notes) process.stderr.write(`mcp-run: note: ${escapeControls(note)}\n`);
  const broken = report.breaks.length > 0;
  if (options.verify || broken) {
    const verdict = broken ? `BROKEN (${report.breaks.length} break(s) above)` : 'intact';
    process.stderr.write(
      `mcp-run: ${report.records} record(s) from ${report.writers} writer(s) in ${report.files} file(s); chain ${verdict}\n`,
    );
  }
  if (broken) process.exitCode = 1;
}

function formatBreak(problem: ChainBreak): string {
  return `mcp-run: chain broken at ${escapeControls(problem.file)}:${problem.line}: ${escapeControls(problem.why)}`;
}

/** One line a record: time, decision/outcome, method and entry, caller, timing and size. */
function formatRecord(record: Readonly<Record<string, unknown>>): string {
  const caller = (record.caller ?? {}) as Record<string, unknown>;
  const who = caller.subject ?? caller.label ?? caller.client ?? '-';
  const decision = record.rule === undefined ? String(record.decision) : `${record.decision}(${record.rule})`;
  const outcome = record.code === undefined ? String(record.outcome) : `${record.outcome} ${record.code}`;
  const fields = [
    String(record.time),
    decision,
    outcome,
    String(record.method),
    record.entry === undefined ? '-' : String(record.entry),
    `caller=${String(who)}`,
    `${String(record.durationMs)}ms`,
    `${String(record.bytes)}B`,
  ];
  return escapeControls(fields.join('  '));
}
