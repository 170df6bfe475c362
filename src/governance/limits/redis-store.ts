/**
 * The limits' counts in Redis (`--state redis://…`), so that replicas behind a load balancer enforce
 * one limit: each check-and-count is one Lua script, atomic in Redis, over every window the call
 * must fit (window.ts's arithmetic, line for line), timed by Redis's own clock so that the replicas'
 * clocks do not matter. Concurrency caps are leases in a sorted set, scored by when they expire: a
 * replica that dies mid-call frees its slots within LEASE_MS; a live call renews its lease.
 *
 * `rate-limiter-flexible` was the candidate library; it does not fit. Its limiters are fixed windows
 * ("enhanced fixed window"), which let twice the limit through across a window's edge; its
 * BurstyRateLimiter adds a burst allowance on top (more through, not less); its Redis limiter's Lua
 * hook sees one key, so a call checked against the server's, its toolset's and its tool's rates
 * could not be checked and counted as one step, and it counts refused calls too.
 *
 * When Redis does not answer, the store rejects and the gate refuses the call (fail closed). A
 * restarted Redis that kept no data starts every window at zero (docs/governance.md#limits).
 */
import { randomUUID } from 'node:crypto';
import type { RedisState } from '../../state/redis.js';
import type { Full, Lease, LimitStore } from './store.js';
import { bucketsOf, type WindowSpec } from './window.js';

/** How long a concurrency slot outlives its last renewal (a replica that died frees it by then). */
export const LEASE_MS = 60_000;

/** KEYS: one hash per window. ARGV: now (ms, or -1 for Redis's clock), then per window limit, width, span. */
const TAKE = `
local now = tonumber(ARGV[1])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i * 3 - 1])
  local width = tonumber(ARGV[i * 3])
  local span = tonumber(ARGV[i * 3 + 1])
  local oldest = math.floor(now / width) - span
  local fields = redis.call('HGETALL', key)
  local total = 0
  local live = {}
  for j = 1, #fields, 2 do
    local index = tonumber(fields[j])
    if index < oldest then redis.call('HDEL', key, fields[j])
    else
      total = total + tonumber(fields[j + 1])
      live[#live + 1] = { index, tonumber(fields[j + 1]) }
    end
  end
  if total >= limit then
    table.sort(live, function(a, b) return a[1] < b[1] end)
    local left = total
    for _, bucket in ipairs(live) do
      left = left - bucket[2]
      if left < limit then return { i, (bucket[1] + span + 1) * width - now } end
    end
    return { i, span * width }
  end
end
for i, key in ipairs(KEYS) do
  local width = tonumber(ARGV[i * 3])
  local span = tonumber(ARGV[i * 3 + 1])
  redis.call('HINCRBY', key, tostring(math.floor(now / width)), 1)
  redis.call('PEXPIRE', key, (span + 1) * width)
end
return { 0, 0 }
`;

/** KEYS: the cap's sorted set. ARGV: max, lease ms, member. 1 when a slot was taken. */
const ENTER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** KEYS: the cap's sorted set. ARGV: lease ms (0: release), member. */
const RENEW = `
if ARGV[1] == '0' then return redis.call('ZREM', KEYS[1], ARGV[2]) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1
`;

export class RedisLimitStore implements LimitStore {
  readonly where: string;

  constructor(
    private readonly state: RedisState,
    /** For tests: the time the windows are counted at, instead of Redis's clock. */
    private readonly now?: () => number,
  ) {
    this.where = `Redis at ${state.where}`;
  }

  async take(windows: readonly WindowSpec[]): Promise<Full | undefined> {
    const args: number[] = [this.now?.() ?? -1];
    for (const w of windows) {
      const { width, span } = bucketsOf(w.windowMs);
      args.push(w.limit, width, span);
    }
    const keys = windows.map((w) => `limits:rate:${w.key}`);
    const [index, retryAfterMs] = (await this.state.script('limitsTake', TAKE, keys, args)) as [
      number,
      number,
    ];
    return index === 0 ? undefined : { index: index - 1, retryAfterMs };
  }

  async enter(key: string, max: number): Promise<Lease | undefined> {
    const set = `limits:concurrent:${key}`;
    const member = randomUUID();
    const taken = await this.state.script('limitsEnter', ENTER, [set], [max, LEASE_MS, member]);
    if (taken !== 1) return undefined;
    const renew = (ms: number) => this.state.script('limitsRenew', RENEW, [set], [ms, member]);
    // A live call keeps its slot however long it runs; a failed renewal leaves it to expire.
    const timer = setInterval(() => void renew(LEASE_MS).catch(() => {}), LEASE_MS / 3);
    timer.unref();
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        clearInterval(timer);
        // Redis away now: the lease expires within LEASE_MS instead.
        void renew(0).catch(() => {});
      },
    };
  }
}
