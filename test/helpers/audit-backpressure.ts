/**
 * Backpressure runs of the audit trail (audit-load, workers-audit): a sink that cannot keep up is a
 * named pipe nobody reads until `readPipe`, and `assertRefusalsAccounted` checks the account
 * `onBackpressure: refuse` must give of such a run.
 */
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';

/** An audit line as read back from the file. */
type AuditLine = any;

/** Reads a named pipe to its end (the server closes it at shutdown). */
export function readPipe(path: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    createReadStream(path, 'utf8')
      .on('data', (chunk) => {
        text += chunk;
      })
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}

/**
 * Every refusal counted in the trail's `backpressure` episodes, every call either a record or
 * counted there, and each refused call's record a limit refusal by the `audit` rule.
 */
export function assertRefusalsAccounted(records: readonly AuditLine[], refused: number, total: number): void {
  const requests = records.filter((r) => r.type === 'request');
  const episodes = records.filter((r) => r.type === 'backpressure');
  assert.ok(episodes.length >= 1, 'the episode is recorded');
  const unrecorded = episodes.reduce((sum: number, r: AuditLine) => sum + r.unrecorded, 0);
  assert.equal(
    episodes.reduce((sum: number, r: AuditLine) => sum + r.refused, 0),
    refused,
    'every refusal counted in an episode',
  );
  assert.equal(requests.length + unrecorded, total, 'every call is a record or counted in an episode');
  const limited = requests.filter((r) => r.decision === 'limit');
  assert.equal(limited.length, refused - unrecorded);
  assert.ok(limited.every((r) => r.rule === 'audit' && r.code === -32041 && r.outcome === 'error'));
}
