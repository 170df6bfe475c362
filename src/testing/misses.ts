/**
 * What a case's HTTP requests that had no true answer (the tape's misses) make of the case. A test
 * file with no fixture yet was never recorded: its HTTP cases need `--record`, an outcome of its own
 * that is not a failure, so a first run still runs and reports every other case. Under CI it is a
 * failure, as nothing can be recorded there. A request missing from a fixture that exists fails: the
 * request changed since it was recorded, or the case is new to a recorded file.
 */
import type { Miss } from './tape.js';

export interface MissContext {
  /** The test file's fixture, and whether it exists. */
  readonly fixture: string;
  readonly fixtureExists: boolean;
  readonly record: boolean;
  readonly ci: boolean;
}

export interface MissOutcome {
  readonly message: string;
  /** True: the case needs --record (outside CI, no fixture yet); false: the case fails. */
  readonly needsRecord: boolean;
}

/**
 * A case's status from its failed expectations and its misses. A request without a true answer got
 * a stand-in (599, 502), and what the expectations say of that is noise: such a case reports its
 * misses only, once each (the http kind retries).
 */
export function verdict(
  failed: readonly string[],
  outcomes: readonly MissOutcome[],
): { status: 'pass' | 'fail' | 'needs-record'; messages: string[] } {
  if (outcomes.length === 0) return { status: failed.length ? 'fail' : 'pass', messages: [...failed] };
  const messages = [...new Set(outcomes.map((o) => o.message))];
  return { status: outcomes.every((o) => o.needsRecord) ? 'needs-record' : 'fail', messages };
}

export function missOutcome(miss: Miss, ctx: MissContext): MissOutcome {
  const fail = (message: string) => ({ message, needsRecord: false });
  if (miss.why === 'refused') return fail(`${miss.request}: refused, ${miss.detail}`);
  if (ctx.record)
    return fail(`${miss.request}: could not record it, the upstream did not answer (${miss.detail})`);
  const what =
    miss.why === 'unreachable'
      ? `${miss.request}: the upstream did not answer (${miss.detail}), and`
      : `${miss.request} has no recorded answer:`;
  if (ctx.fixtureExists)
    return miss.why === 'unrecorded'
      ? fail(`no recorded HTTP answer for ${miss.request} (record with --record)`)
      : fail(`${what} ${ctx.fixture} has none for it (record with --record)`);
  if (ctx.ci)
    return fail(
      `${what} ${ctx.fixture} does not exist: record it with --record where the upstream is reachable, and commit it (under CI a missing fixture fails)`,
    );
  const how =
    miss.why === 'unreachable'
      ? 'record it with `mcp-run test --record` once the upstream is reachable'
      : 'record it with `mcp-run test --record` (the upstream must be reachable), or call the upstream without recording with --live';
  return { message: `${what} ${ctx.fixture} does not exist yet\n${how}`, needsRecord: true };
}
