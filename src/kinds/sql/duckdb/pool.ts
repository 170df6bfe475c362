/**
 * DuckDB connections of one database, at most `max` in use at once. A DuckDB connection runs one
 * query at a time and holds one of libuv's threads while it runs; the cap keeps queries from taking
 * every thread of that pool (which file reads and DNS look-ups share). Callers past it wait in
 * arrival order until a connection frees or their call is cancelled.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CallSignal } from '../../../util/call-signal.js';
import type { SourcePoolStats } from '../../contract/kinds.js';
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

  /** Hands a connection back; one that is still busy in the engine (`reusable` false) is dropped. */
  release(conn: DuckDBConnection, reusable: boolean): void {
    if (!reusable || this.closed) {
      this.total--;
      if (reusable) conn.closeSync();
      // A dropped busy connection is left to the engine; a new one takes its place for a waiter.
      const next = this.waiters.shift();
      if (next && !this.closed) {
        this.total++;
        this.connect().then(next.grant, (err: Error) => {
          this.total--;
          next.fail(err);
        });
      }
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

  stats(): SourcePoolStats {
    return { total: this.total, idle: this.idle.length, waiting: this.waiters.length };
  }
}
