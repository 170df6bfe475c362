/**
 * A PostgreSQL of the fault suite's own, never the shared one: initdb into a temp folder and
 * pg_ctl on a free port, run as the `postgres` OS user (runuser: the tests run as root, and
 * PostgreSQL refuses to run as root). It can really be restarted and stopped; `remove` ends it and
 * deletes its folder. Takes about a second to make on this machine.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../state/replicas-harness.js';

const run = promisify(execFile);
const BIN = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'].find(
  (d) => existsSync(join(d, 'initdb')),
);

/** Why a private PostgreSQL cannot be made here, or undefined. */
export function ownPostgresSkip(): string | undefined {
  if (BIN === undefined) return 'no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql';
  if (process.getuid?.() !== 0)
    return 'making a private PostgreSQL needs root (to run it as the postgres user)';
  if (!existsSync('/usr/sbin/runuser') && !existsSync('/usr/bin/runuser')) return 'runuser is not installed';
  return undefined;
}

export interface OwnPostgres {
  readonly url: string;
  readonly port: number;
  /** pg_ctl restart -m fast: every connection is ended, the server is back when it resolves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-faults-pg-'));
  chownSync(dir, ...idsOf('postgres'));
  const data = join(dir, 'data');
  const port = await freePort();
  const as = (bin: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(BIN as string, bin), ...args], { timeout: 30_000 });
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=30`;
  const ctl = (...args: string[]) =>
    as('pg_ctl', ['-D', data, '-w', '-o', options, '-l', join(dir, 'log'), ...args]);
  await ctl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: async () => {
      await ctl('-m', 'fast', 'restart');
    },
    stop: async () => {
      await ctl('-m', 'fast', 'stop');
    },
    start: async () => {
      await ctl('start');
    },
    remove: async () => {
      await ctl('-m', 'immediate', 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The uid and gid of an OS user, from /etc/passwd. */
function idsOf(user: string): [uid: number, gid: number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  const [, , uid, gid] = (line ?? '').split(':');
  if (uid === undefined || gid === undefined) throw new Error(`no OS user ${user}`);
  return [Number(uid), Number(gid)];
}
