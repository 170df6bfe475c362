/**
 * A worker's line to the primary of `--workers` (workers.ts): what serve.ts asks of it and tells it.
 * Loaded only in a worker.
 */
import { IpcClient } from '../util/ipc.js';

export interface ReloadOrder {
  readonly paths?: readonly string[];
  readonly structural?: boolean;
  /** SIGHUP to the primary: reload even when nothing seems to have changed. */
  readonly force?: boolean;
}

/**
 * Whether the server keeps an audit trail, as its first worker's manifest decided (`on`, `off`), set
 * by the primary on each worker it forks; empty in the first worker, which decides. A worker started
 * again later follows it whatever its manifest now says: `server.audit` is read once, at the start.
 */
export const AUDIT_ENV = 'MCP_RUN_WORKERS_AUDIT';

export class WorkerLink {
  readonly client = new IpcClient();
  /** The server's audit trail as the first worker decided; undefined in the first worker. */
  readonly audit = (process.env[AUDIT_ENV] || undefined) as 'on' | 'off' | undefined;

  constructor(
    /** This worker's slot, 1…count. */
    readonly slot: number,
    readonly count: number,
  ) {}

  /** The HTTP server listens: the primary counts this worker up. */
  listening(url: string): void {
    this.client.note('ops', 'listening', [url]);
  }

  /** The files the current catalog was built from, for the primary's watcher. */
  watch(files: readonly string[]): void {
    this.client.note('ops', 'watch', [files]);
  }

  onReload(handler: (order: ReloadOrder) => void): void {
    this.client.onPush('reload', (data) => handler(data as ReloadOrder));
  }

  /** Why the whole server is not ready (a worker down), or undefined. */
  async unready(): Promise<string | undefined> {
    try {
      const { up, want } = await this.client.call<{ up: number; want: number }>('ops', 'ready', []);
      return up < want ? `${up} of ${want} workers are up` : undefined;
    } catch (err) {
      return `the primary process did not answer: ${(err as Error).message}`;
    }
  }

  /** The metrics of the whole server (the primary sums every worker's). */
  metrics(): Promise<string> {
    return this.client.call<string>('ops', 'metrics', []);
  }
}
