/**
 * `npx tsx bench/pg-wire-cost.ts`: what each statement of a pipelined one-row read costs the
 * PostgreSQL backend, with no driver in the way: a raw protocol client sends prepared statements
 * (Bind, Execute … Sync, one packet) in a loop and reads the backend's time on a CPU from
 * /proc/<pid>/schedstat (ns). Variants: the statement alone (what Toolbox's pgx sends), the source's
 * read as it was (BEGIN READ ONLY, the statement with its portal described, ROLLBACK), that without
 * the Describe, plain BEGIN on a connection started with default_transaction_read_only=on with and
 * without the Describe (the latter is the source's warm read now), and the old read with
 * pg_advisory_unlock_all(). One connection each, warm,
 * interleaved rounds, the median per variant; MCP_RUN_TEST_POSTGRES_URL (a login that may create
 * a database, dropped after). Not a test: a measurement.
 *
 * Instructions per read, which the machine's other load does not move: run a server of your own
 * under `valgrind --tool=callgrind --callgrind-out-file=cg.%p postgres -D <initdb'd dir> -p <port>`,
 * then this with ROUNDS=1 CALLS=1000 and again with CALLS=3000; each backend writes cg.<pid> when it
 * ends, and (the 3000 run's total − the 1000 run's) / 2000 of the same variant (the pid printed
 * beside it) is its count per read.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import pg from 'pg';
import { median } from './lib/stats.js';

const CALLS = Number(process.env.CALLS ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const QUERY = 'SELECT id, name, price FROM items WHERE id = $1';

const url = process.env.MCP_RUN_TEST_POSTGRES_URL;
if (!url) {
  console.log('skipped: MCP_RUN_TEST_POSTGRES_URL is not set');
  process.exit(0);
}

/** A frontend message: its type byte, a length that counts itself, the body. */
function message(type: string, ...body: Buffer[]): Buffer {
  const b = Buffer.concat(body);
  const head = Buffer.alloc(5);
  head[0] = type.charCodeAt(0);
  head.writeInt32BE(4 + b.length, 1);
  return Buffer.concat([head, b]);
}
const text = (s: string) => Buffer.from(`${s}\0`);
const int16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const parse = (name: string, sql: string) => message('P', text(name), text(sql), int16(0));
const bind = (name: string, values: string[] = []) =>
  message(
    'B',
    text(''),
    text(name),
    int16(0),
    int16(values.length),
    ...values.flatMap((v) => [int32(Buffer.byteLength(v)), Buffer.from(v)]),
    int16(0),
  );
const execute = (rows = 0) => message('E', text(''), int32(rows));
const DESCRIBE = message('D', Buffer.from('P\0'));
const SYNC = message('S');

/** A connection that sends a packet and waits for its ReadyForQuery; fails on an ErrorResponse. */
async function rawConnection(target: URL, options?: string) {
  const socket = connect(Number(target.port || 5432), target.hostname);
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const params = ['user', decodeURIComponent(target.username), 'database', target.pathname.slice(1)];
  if (options) params.push('options', options);
  const body = Buffer.concat([int32(196608), ...params.map(text), Buffer.from([0])]);
  let pending = Buffer.alloc(0);
  let waiting: { resolve: () => void; reject: (err: Error) => void } | undefined;
  let pid = 0;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 5 && pending.length >= pending.readInt32BE(1) + 1) {
      const type = String.fromCharCode(pending[0]!);
      const end = pending.readInt32BE(1) + 1;
      const m = pending.subarray(5, end);
      pending = pending.subarray(end);
      if (type === 'K') pid = m.readInt32BE(0);
      else if (type === 'R' && m.readInt32BE(0) !== 0) waiting?.reject(new Error('only trust auth'));
      else if (type === 'E') waiting?.reject(new Error(m.toString().replace(/\0/g, ' ')));
      else if (type === 'Z') waiting?.resolve();
    }
  });
  const send = (packet: Buffer) =>
    new Promise<void>((resolve, reject) => {
      waiting = { resolve, reject };
      socket.write(packet);
    });
  await send(Buffer.concat([int32(body.length + 4), body]));
  return { send, pid: () => pid, end: () => socket.end() };
}

const cpuUs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;

interface Variant {
  readonly label: string;
  readonly options?: string;
  readonly prepare: Buffer[];
  call(id: string): Buffer[];
}
const read = (begin: string, describe: boolean, unlock = false): Pick<Variant, 'prepare' | 'call'> => ({
  prepare: [
    parse('b', begin),
    parse('q', QUERY),
    parse('r', 'ROLLBACK'),
    ...(unlock ? [parse('u', 'SELECT pg_advisory_unlock_all()')] : []),
  ],
  call: (id) => [
    bind('b'),
    execute(),
    bind('q', [id]),
    ...(describe ? [DESCRIBE] : []),
    execute(101),
    ...(unlock ? [bind('u'), execute()] : []),
    bind('r'),
    execute(),
  ],
});
const READ_ONLY = '-c default_transaction_read_only=on';
const variants: Variant[] = [
  {
    label: 'the statement alone',
    prepare: [parse('q', QUERY)],
    call: (id) => [bind('q', [id]), execute()],
  },
  {
    label: 'BEGIN READ ONLY, statement + Describe, ROLLBACK (the source before)',
    ...read('BEGIN READ ONLY', true),
  },
  { label: 'BEGIN READ ONLY, statement, ROLLBACK', ...read('BEGIN READ ONLY', false) },
  {
    label: 'read-only session: BEGIN, statement + Describe, ROLLBACK',
    options: READ_ONLY,
    ...read('BEGIN', true),
  },
  {
    label: "read-only session: BEGIN, statement, ROLLBACK (the source's warm read)",
    options: READ_ONLY,
    ...read('BEGIN', false),
  },
  { label: 'the source before, with pg_advisory_unlock_all()', ...read('BEGIN READ ONLY', true, true) },
];

const database = `mcp_run_wire_cost_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const target = new URL(url);
target.pathname = `/${database}`;
try {
  const setup = new pg.Client({ connectionString: target.toString() });
  await setup.connect();
  await setup.query('CREATE TABLE items (id int PRIMARY KEY, name text, price float8)');
  await setup.query("INSERT INTO items SELECT i, 'item ' || i, i * 1.5 FROM generate_series(1, 1000) i");
  await setup.end();
  const connections = [];
  for (const v of variants) {
    const c = await rawConnection(target, v.options);
    await c.send(Buffer.concat([...v.prepare, SYNC]));
    connections.push(c);
  }
  const packets = variants.map((v) =>
    Array.from({ length: 1000 }, (_, i) => Buffer.concat([...v.call(String(1 + i)), SYNC])),
  );
  const perCall = variants.map(() => [] as number[]);
  const load0 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, c] of connections.entries()) {
      for (let k = 0; k < 500; k++) await c.send(packets[i]![k % 1000]!);
      const t0 = cpuUs(c.pid());
      for (let k = 0; k < CALLS; k++) await c.send(packets[i]![k % 1000]!);
      perCall[i]!.push((cpuUs(c.pid()) - t0) / CALLS);
    }
  }
  const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(`${ROUNDS} rounds of ${CALLS} reads; 1-min load ${load0} at the start, ${load1} at the end`);
  for (const [i, v] of variants.entries()) {
    const xs = perCall[i]!;
    console.log(
      `${v.label}: backend ${median(xs).toFixed(2)} µs/read [${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}] (pid ${connections[i]!.pid()})`,
    );
  }
  for (const c of connections) c.end();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
