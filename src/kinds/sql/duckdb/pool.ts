/**
 * DuckDB connections of one database, in its worker process, at most `max` in use at once. A DuckDB
 * connection runs one query at a time and holds one of libuv's threads while it runs; the cap keeps
 * queries from taking every thread of that pool (which file reads share). The server sends no more
 * than `max` queries at once (host.ts); a caller past it would wait in arrival order until a
 * connection frees or its call is cancelled.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CallSignal } from '../../../util/call-signal.js';
import { CANCELLED_MESSAGE } from '../result.js';

interface Waiter {
  readonly grant: (conn: DuckDBConnection) => void;
  readonly fail: (err: Error) => void;
}

export class ConnectionPool {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiters: Waiter[] = [];
  private total = 0;
  private closed = false;

  constructor(
    private readonly connect: () => Promise<DuckDBConnection>,
    private readonly max: number,
  ) {}

  async acquire(signal: CallSignal): Promise<DuckDBConnection> {
    if (this.closed) throw new Error('the source is closed');
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.total < this.max) {
      this.total++;
      try {
        return await this.connect();
      } catch (err) {
        this.total--;
        throw err;
      }
    }
    return new Promise<DuckDBConnection>((grant, fail) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at !== -1) this.waiters.splice(at, 1);
        fail(new Error(CANCELLED_MESSAGE));
      };
      const waiter: Waiter = {
        grant: (conn) => {
          signal.removeEventListener('abort', onAbort);
          grant(conn);
        },
        fail,
      };
      this.waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Hands a connection back. A query that does not stop at its interrupt is never waited for here:
   * the server ends the whole worker process (host.ts).
   */
  release(conn: DuckDBConnection): void {
    if (this.closed) {
      this.total--;
      conn.closeSync();
      return;
    }
    const next = this.waiters.shift();
    if (next) next.grant(conn);
    else this.idle.push(conn);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.fail(new Error('the source is closed'));
    for (const conn of this.idle.splice(0)) {
      this.total--;
      conn.closeSync();
    }
  }
}
