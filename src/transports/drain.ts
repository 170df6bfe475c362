/**
 * Shutdown's one drain, for stdio and HTTP alike. The transport first refuses new work (stdio
 * stops reading; HTTP closes its port and answers 503) and the protocol ends every listen stream
 * with its final result. Then the requests in flight get `graceMs` to finish and be answered as
 * usual; each one still running after that is answered with the error below and aborted
 * (Connection.abandon), so no client is left reading a stream that ends with no answer.
 */
import type { Logger } from '../log.js';
import { ErrorCode, ProtocolError } from '../protocol/jsonrpc.js';
import { settleWithin } from '../util/with-timeout.js';

/** What a request still running when the drain's bound runs out is answered with. */
export function shutdownError(graceMs: number): ProtocolError {
  return new ProtocolError(
    ErrorCode.InternalError,
    `Server shutting down: the request did not finish within the ${graceMs} ms drain and was stopped ` +
      '(it may have partly run); send it again once the server is back',
    { reason: 'shutdown', drainMs: graceMs },
  );
}

/**
 * What a request is answered with when the process running it went away (a worker of `--workers`
 * killed mid-call), on the stream its client resumes elsewhere.
 */
export function processGoneError(): ProtocolError {
  return new ProtocolError(
    ErrorCode.InternalError,
    'The server process running this request stopped before it finished (it may have partly run); send it again',
    { reason: 'process gone' },
  );
}

/**
 * Waits (at most `graceMs`) for `idle`, which resolves once nothing is in flight, then answers what
 * is left through `abandon`. Resolves with how many requests were answered that way.
 */
export async function drain(
  idle: Promise<unknown>,
  graceMs: number,
  abandon: (error: ProtocolError) => number,
  log: Logger,
): Promise<number> {
  await settleWithin(idle, graceMs);
  const cut = abandon(shutdownError(graceMs));
  if (cut > 0)
    log.warn(
      `shutdown: ${cut} request(s) still running after the ${graceMs} ms drain were answered with an error`,
    );
  return cut;
}
