/**
 * What a `shell` tool returns: stdout as text (structured when it is a JSON object the tool promised
 * with an outputSchema), a note when output was cut, and an error result with the reason and the
 * last lines of stderr when the program failed, timed out, was cancelled or could not start. Every
 * text passes through the tool's redactor first.
 */

import { isObject } from '../../util/is-object.js';
import { errorResult } from '../contract/results.js';
import type { ToolResult } from '../contract/types.js';
import type { Redactor } from './redact.js';
import type { Output, RunOutcome } from './run-process.js';

const TAIL_LINES = 20;

/** The result the model sees for one run: the output, or why there is none. */
export function outcomeResult(
  program: string,
  o: RunOutcome,
  timeoutMs: number,
  maxBytes: number,
  wantsJson: boolean,
  secrets: Redactor,
): ToolResult {
  const tail = (output: Output) => tailOf(output, maxBytes, secrets);
  if (o.spawnError) {
    return errorResult(`Could not start ${program}: ${secrets.redact(o.spawnError.message)}.`);
  }
  if (o.stopped === 'cancelled') return errorResult(`${program} was cancelled and stopped.`);
  if (o.stopped === 'timeout') {
    return errorResult(
      `${program} did not finish within ${timeoutMs} ms and was stopped. Ask for less, or raise timeoutMs.${tail(o.stderr)}`,
    );
  }
  if (o.exitCode !== 0) {
    const how = o.exitSignal ? `was killed by ${o.exitSignal}` : `exited with code ${o.exitCode}`;
    return errorResult(`${program} ${how}.${tail(o.stderr.total > 0 ? o.stderr : o.stdout)}`);
  }
  const wasCut = o.stdout.total > maxBytes;
  const stdout = (wasCut ? secrets.redactCut : secrets.redact)(o.stdout.bytes.toString('utf8'));
  const cut = wasCut ? `\n\n[${cutNote(program, o.stdout, maxBytes)}]` : '';
  const result: ToolResult = {
    content: [{ type: 'text', text: stdout === '' ? `${program} finished with no output.` : stdout + cut }],
  };
  if (!wantsJson || cut) return result;
  try {
    const parsed: unknown = JSON.parse(stdout);
    if (isObject(parsed)) return { ...result, structuredContent: parsed };
  } catch {
    // not JSON: the text alone is the result (an outputSchema then reports the mismatch)
  }
  return result;
}

function cutNote(program: string, output: Output, maxBytes: number): string {
  return `output cut at ${maxBytes} bytes: ${program} wrote ${output.total} bytes; the rest was read and dropped (maxOutputBytes)`;
}

/** The last lines of an output, for error results. */
function tailOf(output: Output, maxBytes: number, secrets: Redactor): string {
  const wasCut = output.total > maxBytes;
  const text = (wasCut ? secrets.redactCut : secrets.redact)(output.bytes.toString('utf8'));
  const lines = text.trimEnd().split('\n');
  if (lines.length === 1 && lines[0] === '') return '';
  const shown = lines.slice(-TAIL_LINES).join('\n');
  const note = wasCut ? `\n[${cutNote('it', output, maxBytes)}]` : '';
  return `\n${lines.length > TAIL_LINES ? '…\n' : ''}${shown}${note}`;
}

/** The compiled pattern, null when it is invalid or lacks the `progress` group. */
export function progressPattern(pattern: string): RegExp | null {
  try {
    const regex = new RegExp(pattern);
    // Matching the empty alternative lists every named group of the pattern.
    const groups = new RegExp(`${pattern}|`).exec('')?.groups;
    return groups && 'progress' in groups ? regex : null;
  } catch {
    return null;
  }
}
