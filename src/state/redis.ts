/**
 * SharedState on Redis (ioredis), for `--state redis://[user:password@]host:port[/db][?prefix=name]`.
 * Every key and channel starts with `mcp-run:` plus the URL's `prefix` (so several deployments can
 * share one Redis), values are bounded (shared.ts), and a log is a list plus a metadata hash kept
 * bounded by one Lua script, so concurrent appends from several replicas stay ordered.
 *
 * Failure is explicit: commands are not queued while Redis is unreachable (they fail at once with a
 * StateError, and each has a time limit), `healthy` follows the connection, the change is logged
 * once each way, and ioredis reconnects on its own; the subscriber resubscribes when it does.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../log.js';
import {
  type Announcement,
  bounded,
  type IndexEntry,
  type LogBounds,
  type LogRead,
  type SharedState,
  StateError,
  StateUnavailable,
} from './shared.js';

/** Longest one command waits before it fails. */
const COMMAND_TIMEOUT_MS = 2000;
/** Reconnect attempts back off up to this. */
const MAX_RETRY_MS = 2000;

const APPEND = `
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
if redis.call('HGET', KEYS[2], 'closed') == '1' then return -2 end
if ARGV[5] ~= '' and redis.call('HGET', KEYS[2], 'once') == ARGV[5] then
  return tonumber(redis.call('HGET', KEYS[2], 'onceSeq'))
end
local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'once', ARGV[5], 'onceSeq', seq) end
local entry = seq .. ' ' .. ARGV[1]
redis.call('RPUSH', KEYS[1], entry)
local bytes = redis.call('HINCRBY', KEYS[2], 'bytes', #entry)
local n = redis.call('LLEN', KEYS[1])
while n > 1 and (n > tonumber(ARGV[2]) or bytes > tonumber(ARGV[3])) do
  local dropped = redis.call('LPOP', KEYS[1])
  bytes = redis.call('HINCRBY', KEYS[2], 'bytes', -#dropped)
  n = n - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return seq
`;

/** KEYS: the value, the keys to extend with it, the index (last). ARGV: ttl, score, member. */
const GET_AND_TOUCH = `
local value = redis.call('GET', KEYS[1])
if not value then return false end
for i = 1, #KEYS - 1 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
redis.call('ZADD', KEYS[#KEYS], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[#KEYS], ARGV[1])
return value
`;

/** KEYS: the claim. ARGV: owner, ttl. 1 when the owner holds it (now, or already). */
const CLAIM = `
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if held == ARGV[1] then return 1 end
return 0
`;

type ScriptCommand = (keys: number, ...args: (string | number)[]) => Promise<unknown>;

interface AppendCommand {
  claimFor(key: string, owner: string, ttl: number): Promise<number>;
  getAndTouch(keys: number, ...args: (string | number)[]): Promise<string | null>;
  logAppend(
    list: string,
    meta: string,
    item: string,
    items: number,
    bytes: number,
    ttl: number,
    once: string,
  ): Promise<number>;
}

/** The URL's `prefix` query parameter, checked: letters, digits, `._-`, at most 64. */
export function parseStateUrl(url: string): { url: string; prefix: string; where: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StateError(`--state ${JSON.stringify(url)} is not a URL; give redis://host:port`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new StateError(`--state takes a redis:// or rediss:// URL, not ${parsed.protocol}//…`);
  const name = parsed.searchParams.get('prefix') ?? '';
  if (!/^[\w.-]{0,64}$/.test(name))
    throw new StateError('the prefix of --state is letters, digits, "._-", at most 64 characters');
  parsed.searchParams.delete('prefix');
  const where = `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  return { url: parsed.toString(), prefix: name === '' ? 'mcp-run:' : `mcp-run:${name}:`, where };
}

export class RedisState implements SharedState {
  readonly kind = 'redis';
  readonly where: string;
  private readonly prefix: string;
  private readonly log: Logger;
  private readonly client: Redis & AppendCommand;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, ((message: string) => void)[]>();
  private readonly listeners: ((healthy: boolean, fault: string | undefined) => void)[] = [];
  private readonly resumed: (() => void)[] = [];
  private lastFault: string | undefined = 'not connected yet';
  private closing = false;
  /** The subscriber's SUBSCRIBE of every channel was confirmed on its current connection. */
  private subscribed = false;
  private lostDelivery = 0;
  /** SUBSCRIBEs not confirmed yet: a channel among them may miss messages. */
  private pendingSubscribes = 0;

  constructor(url: string, log: Logger) {
    const parsed = parseStateUrl(url);
    this.where = parsed.where;
    this.prefix = parsed.prefix;
    this.log = log;
    const options: RedisOptions = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (attempt) => (this.closing ? null : Math.min(100 * attempt, MAX_RETRY_MS)),
      lazyConnect: true,
    };
    this.client = new Redis(parsed.url, options) as Redis & AppendCommand;
    this.client.defineCommand('logAppend', { numberOfKeys: 2, lua: APPEND });
    this.client.defineCommand('getAndTouch', { lua: GET_AND_TOUCH });
    this.client.defineCommand('claimFor', { numberOfKeys: 1, lua: CLAIM });
    // The subscriber queues its SUBSCRIBE until connected, and resubscribes after a reconnect.
    this.subscriber = new Redis(parsed.url, {
      ...options,
      enableOfflineQueue: true,
      commandTimeout: undefined,
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
    this.subscriber.on('error', () => {});
    // Messages published while the subscriber is away are lost: each loss counts as a gap, and
    // delivery counts as live again once the channels are subscribed on the new connection (ioredis
    // resubscribes too; a second SUBSCRIBE of a channel is harmless, and this one is confirmed).
    this.subscriber.on('close', () => {
      this.subscribed = false;
      this.lostDelivery++;
    });
    this.subscriber.on('ready', () => this.confirmSubscriptions());
    this.client.on('ready', () => this.health(undefined));
    this.client.on('error', (err: Error) => this.health(err.message || err.name));
    this.client.on('close', () => this.health(this.lastFault ?? 'the connection closed'));
    this.onHealth((healthy, fault) => {
      if (this.closing) return;
      if (healthy) log.info(`state: Redis at ${this.where} is reachable; 2025 sessions are shared`);
      else
        log.error(
          `state: Redis at ${this.where} is unreachable (${fault}); 2025-era requests get 503 until it returns, 2026 requests are served`,
        );
    });
  }

  /** Connects both clients; resolves either way (ioredis keeps trying), false when not reachable now. */
  async connect(): Promise<boolean> {
    const reached = await Promise.all([
      this.client.connect().then(
        () => true,
        () => false,
      ),
      this.subscriber.connect().then(
        () => true,
        () => false,
      ),
    ]);
    return reached.every(Boolean);
  }

  private confirmSubscriptions(): void {
    const channels = [...this.handlers.keys()];
    if (channels.length === 0) return;
    this.confirm(channels);
  }

  /** SUBSCRIBE, counted as pending until Redis confirms it on the connection it was sent on. */
  private confirm(channels: string[]): void {
    const gaps = this.lostDelivery;
    this.pendingSubscribes++;
    const settle = (ok: boolean) => {
      this.pendingSubscribes--;
      if (!ok || gaps !== this.lostDelivery || this.subscriber.status !== 'ready') return;
      const again = !this.subscribed && gaps > 0;
      this.subscribed = true;
      if (!again) return;
      this.log.debug(`state: subscriptions at ${this.where} are live again`);
      // What was announced meanwhile is read with the other connection, which queues nothing
      // while it is away: the listeners run once it is ready (it may reconnect after this one).
      if (this.client.status === 'ready') this.resume();
      else if (!this.resumeOnReady) {
        this.resumeOnReady = true;
        this.client.once('ready', () => {
          this.resumeOnReady = false;
          this.resume();
        });
      }
    };
    this.subscriber.subscribe(...channels).then(
      () => settle(true),
      () => settle(false),
    );
  }

  private resumeOnReady = false;
  private resume(): void {
    for (const listener of this.resumed) listener();
  }

  get delivering(): boolean {
    return this.subscribed && this.pendingSubscribes === 0 && this.subscriber.status === 'ready';
  }
  get gaps(): number {
    return this.lostDelivery;
  }

  get healthy(): boolean {
    return this.client.status === 'ready';
  }
  get fault(): string | undefined {
    return this.healthy ? undefined : (this.lastFault ?? this.client.status);
  }
  onHealth(listener: (healthy: boolean, fault: string | undefined) => void): void {
    this.listeners.push(listener);
  }
  onDeliveryResumed(listener: () => void): void {
    this.resumed.push(listener);
  }
  private wasHealthy = false;
  private health(fault: string | undefined): void {
    if (fault !== undefined) this.lastFault = fault;
    const now = fault === undefined;
    if (now === this.wasHealthy) return;
    this.wasHealthy = now;
    for (const listener of this.listeners) listener(now, fault);
  }

  private k(key: string): string {
    return this.prefix + key;
  }

  /**
   * Runs a Lua script of a store built on this one (governance/limits/redis-store.ts) on the command
   * connection, its keys under this state's prefix; it fails like every command here (no queueing,
   * a time limit, StateUnavailable). `name` is defined once, then sent as EVALSHA.
   */
  async script(name: string, lua: string, keys: readonly string[], args: readonly (string | number)[]) {
    if (!this.scripts.has(name)) {
      this.client.defineCommand(name, { lua });
      this.scripts.add(name);
    }
    const command = (this.client as unknown as Record<string, ScriptCommand>)[name] as ScriptCommand;
    const all = [...keys.map((key) => this.k(key)), ...args];
    return this.run(name, () => command.call(this.client, keys.length, ...all));
  }
  private readonly scripts = new Set<string>();

  private async run<T>(what: string, command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      if (err instanceof StateError) throw err;
      throw new StateUnavailable(`Redis at ${this.where}: ${what} failed: ${(err as Error).message}`);
    }
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.run('GET', () => this.client.get(this.k(key)))) ?? undefined;
  }
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    bounded(`the value of ${key}`, value);
    await this.run('SET', () => this.client.set(this.k(key), value, 'PX', ttlMs));
  }
  async del(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const all = keys.flatMap((key) => [this.k(key), `${this.k(key)}:m`]);
    await this.run('DEL', () => this.client.del(...all));
  }
  async touch(keys: readonly string[], ttlMs: number): Promise<void> {
    if (keys.length === 0) return;
    const multi = this.client.multi();
    for (const key of keys) multi.pexpire(this.k(key), ttlMs);
    await this.run('PEXPIRE', () => multi.exec());
  }
  async getAndTouch(
    key: string,
    also: readonly string[],
    index: IndexEntry,
    ttlMs: number,
  ): Promise<string | undefined> {
    const keys = [key, ...also, index.key].map((k) => this.k(k));
    const value = await this.run('GET', () =>
      this.client.getAndTouch(keys.length, ...keys, ttlMs, Date.now(), index.member),
    );
    return value ?? undefined;
  }
  async setAndTouch(
    key: string,
    value: string,
    ttlMs: number,
    index: IndexEntry,
    announce?: Announcement,
  ): Promise<void> {
    bounded(`the value of ${key}`, value);
    if (announce !== undefined) bounded(`a message on ${announce.channel}`, announce.message);
    const multi = this.client
      .multi()
      .set(this.k(key), value, 'PX', ttlMs)
      .zadd(this.k(index.key), Date.now(), index.member)
      .pexpire(this.k(index.key), ttlMs);
    if (announce !== undefined) multi.publish(this.k(announce.channel), announce.message);
    const replies = await this.run('SET', () => multi.exec());
    const failed = replies?.find(([err]) => err !== null)?.[0];
    if (failed) throw new StateError(`Redis at ${this.where}: SET failed: ${failed.message}`);
  }
  async claim(key: string, ttlMs: number, owner: string): Promise<boolean> {
    return (await this.run('CLAIM', () => this.client.claimFor(this.k(key), owner, ttlMs))) === 1;
  }

  async indexTouch(key: string, member: string, ttlMs: number): Promise<void> {
    await this.run('ZADD', () =>
      this.client.multi().zadd(this.k(key), Date.now(), member).pexpire(this.k(key), ttlMs).exec(),
    );
  }
  async indexRecent(key: string, withinMs: number): Promise<string[]> {
    const since = Date.now() - withinMs;
    const replies = await this.run('ZRANGE', () =>
      this.client
        .multi()
        .zremrangebyscore(this.k(key), '-inf', `(${since}`)
        .zrangebyscore(this.k(key), since, '+inf')
        .exec(),
    );
    const members = replies?.[1]?.[1];
    return Array.isArray(members) ? (members as string[]) : [];
  }
  async indexRemove(key: string, member: string): Promise<void> {
    await this.run('ZREM', () => this.client.zrem(this.k(key), member));
  }

  async logCreate(key: string, tag: string, ttlMs: number): Promise<void> {
    const meta = `${this.k(key)}:m`;
    await this.run('HSETNX', () =>
      this.client.multi().hsetnx(meta, 'seq', '0').hsetnx(meta, 'tag', tag).pexpire(meta, ttlMs).exec(),
    );
  }
  async logAppend(key: string, item: string, bounds: LogBounds, once = ''): Promise<number> {
    bounded(`an item of ${key}`, item);
    const seq = await this.run('append', () =>
      this.client.logAppend(
        this.k(key),
        `${this.k(key)}:m`,
        item,
        bounds.items,
        bounds.bytes,
        bounds.ttlMs,
        once,
      ),
    );
    if (seq === -1) throw new StateError(`no log ${key} (expired?)`);
    if (seq === -2) throw new StateError(`the log ${key} is closed`);
    return seq;
  }
  async logRead(key: string, afterSeq: number, ttlMs: number): Promise<LogRead | undefined> {
    const list = this.k(key);
    const meta = `${list}:m`;
    const replies = await this.run('read', () =>
      this.client.multi().hgetall(meta).lrange(list, 0, -1).pexpire(meta, ttlMs).pexpire(list, ttlMs).exec(),
    );
    const fields = replies?.[0]?.[1] as Record<string, string> | undefined;
    if (fields === undefined || fields.seq === undefined) return undefined;
    const items = [];
    for (const entry of (replies?.[1]?.[1] as string[] | undefined) ?? []) {
      const space = entry.indexOf(' ');
      const seq = Number(entry.slice(0, space));
      if (seq > afterSeq) items.push({ seq, item: entry.slice(space + 1) });
    }
    return { items, last: Number(fields.seq), closed: fields.closed === '1', tag: fields.tag ?? '' };
  }
  async logClose(key: string, ttlMs: number): Promise<void> {
    const meta = `${this.k(key)}:m`;
    await this.run('close', () => this.client.multi().hset(meta, 'closed', '1').pexpire(meta, ttlMs).exec());
  }

  async publish(channel: string, message: string): Promise<void> {
    bounded(`a message on ${channel}`, message);
    await this.run('PUBLISH', () => this.client.publish(this.k(channel), message));
  }
  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    const full = this.k(channel);
    const known = this.handlers.get(full);
    this.handlers.set(full, [...(known ?? []), handler]);
    // Not awaited: while Redis is away the SUBSCRIBE waits in the subscriber's queue.
    if (known === undefined) this.confirm([full]);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.client.disconnect();
    this.subscriber.disconnect();
  }
}
