/**
 * The limits stage of a call: the rates and caps that apply to one tool (the server's, its
 * toolsets', its own), checked for one caller. Caps first (a call refused for being one too many
 * at once uses none of its rates), then every rate in one step of the store (a call refused by one
 * rate uses nothing of the others). A refusal is a GovernanceRefusal naming the rule as the manifest
 * writes it (`tools.search.limits.calls 10/minute`) and when a retry can pass; it is counted by
 * rule in the metrics.
 *
 * Fail closed: when the store cannot answer (Redis down), the call is refused under the first rule
 * that applies, with a short retry; a limit that cannot be checked is not waved through.
 */
import type { LimitsSection } from '../../manifest/types.js';
import { ops } from '../../ops/hooks.js';
import { nodeCrypto } from '../../util/lazy-node.js';
import { parseRate, type Rate } from '../../util/rate.js';
import { GovernanceRefusal } from '../refusal.js';
import { type Lease, limitStore } from './store.js';

/** The caller on stdio (and in-process clients): one caller, whoever runs the process. */
export const ONE_CALLER = 'stdio';

/** When the store is down or a cap is full, the retry hinted at: soon, the outcome unknown. */
const RETRY_SOON_MS = 1000;

interface RateRule {
  readonly name: string;
  readonly rate: Rate;
}

interface CapRule {
  readonly name: string;
  readonly max: number;
}

/** A `limits:` block and where the manifest declares it: `server.limits`, `tools.search.limits`. */
export interface LimitsAt {
  readonly at: string;
  readonly limits: LimitsSection | undefined;
}

const NOTHING_HELD: Lease = { release() {} };

export class CallLimits {
  private constructor(
    private readonly rates: readonly RateRule[],
    private readonly caps: readonly CapRule[],
  ) {}

  /** The limits of these blocks together; undefined when none declares any. */
  static of(blocks: readonly LimitsAt[]): CallLimits | undefined {
    const rates: RateRule[] = [];
    const caps: CapRule[] = [];
    for (const { at, limits } of blocks) {
      if (limits === undefined) continue;
      const calls =
        limits.calls === undefined ? [] : typeof limits.calls === 'string' ? [limits.calls] : limits.calls;
      for (const text of calls) {
        // The schema checked the pattern; a rate that does not parse cannot get here.
        const rate = parseRate(text);
        const name = `${at}.calls ${text}`;
        // A rate written twice is one rule (its key is its name), not a call counted twice.
        if (rate !== undefined && !rates.some((r) => r.name === name)) rates.push({ name, rate });
      }
      if (limits.concurrent !== undefined)
        caps.push({ name: `${at}.concurrent ${limits.concurrent}`, max: limits.concurrent });
    }
    return rates.length === 0 && caps.length === 0 ? undefined : new CallLimits(rates, caps);
  }

  /** `server.limits.requests`: one rate on the HTTP requests of a caller, checked by the transport. */
  static requests(text: string | undefined): CallLimits | undefined {
    const rate = text === undefined ? undefined : parseRate(text);
    return rate === undefined
      ? undefined
      : new CallLimits([{ name: `server.limits.requests ${text}`, rate }], []);
  }

  /**
   * Admits one call of `caller` (its label: an OAuth principal, an address, ONE_CALLER) or throws a
   * GovernanceRefusal. The lease holds the call's slots of the caps: release it when the call ends,
   * however it ends. `continued`: the request is the next round of a call already admitted (a 2026
   * retry with its verified, single-use requestState), which the rates counted then: only the caps
   * apply.
   */
  async admit(caller: string, { continued = false } = {}): Promise<Lease> {
    const store = limitStore();
    const who = digest(caller);
    const held: Lease[] = [];
    const releaseAll = () => {
      for (const lease of held) lease.release();
    };
    let rule = this.caps[0]?.name ?? this.rates[0]?.name ?? '';
    try {
      for (const cap of this.caps) {
        rule = cap.name;
        const lease = await store.enter(`${cap.name}|${who}`, cap.max);
        if (lease === undefined) {
          releaseAll();
          throw refusal(
            cap.name,
            `${cap.max} calls of this caller are already running (${cap.name}); retry when one has finished`,
            RETRY_SOON_MS,
          );
        }
        held.push(lease);
      }
      if (this.rates.length > 0 && !continued) {
        rule = this.rates[0]?.name ?? rule;
        const windows = this.rates.map(({ name, rate }) => ({
          key: `${name}|${who}`,
          limit: rate.count,
          windowMs: rate.windowMs,
        }));
        const full = await store.take(windows);
        if (full !== undefined) {
          releaseAll();
          const name = this.rates[full.index]?.name ?? rule;
          const seconds = Math.max(1, Math.ceil(full.retryAfterMs / 1000));
          throw refusal(
            name,
            `rate limit reached (${name}) for this caller; retry after ${seconds} s`,
            full.retryAfterMs,
          );
        }
      }
    } catch (err) {
      if (err instanceof GovernanceRefusal) throw err;
      releaseAll();
      throw refusal(
        rule,
        `limits cannot be checked now (${store.where} does not answer), so the call is refused; retry shortly`,
        RETRY_SOON_MS,
      );
    }
    if (held.length === 0) return NOTHING_HELD;
    return held.length === 1 ? (held[0] as Lease) : { release: releaseAll };
  }
}

/**
 * Runs `run` once `limits` admit `client` (absent: ONE_CALLER), holding the call's slots of the caps
 * until it ends, however it ends; a refusal is thrown. No limits: just runs it. `continued`: as
 * for `admit`.
 */
export async function withLimits<T>(
  limits: CallLimits | undefined,
  client: string | undefined,
  run: () => Promise<T>,
  options: { readonly continued?: boolean } = {},
): Promise<T> {
  if (limits === undefined) return run();
  const lease = await limits.admit(client ?? ONE_CALLER, options);
  try {
    return await run();
  } finally {
    lease.release();
  }
}

function refusal(rule: string, message: string, retryAfterMs: number): GovernanceRefusal {
  ops.limitRefused(rule);
  return new GovernanceRefusal(
    'limit',
    rule,
    message[0]?.toUpperCase() + message.slice(1),
    Math.max(1, Math.ceil(retryAfterMs)),
  );
}

/** A caller's key in the store: fixed length, and no subject or address written into Redis. */
function digest(caller: string): string {
  return nodeCrypto().createHash('sha256').update(caller).digest('base64url').slice(0, 22);
}
