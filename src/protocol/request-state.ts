/**
 * The 2026 `requestState`: what a call carries between MRTR rounds, sealed so that a client (which
 * the spec says to treat as an attacker here) can echo it but not forge or alter it.
 *
 * Token: `base64url(JSON payload) "." base64url(HMAC-SHA256(key, that first part))`. The payload
 * binds the state to the method and the tool or prompt name, to a digest of the arguments, and to
 * an expiry; a random id makes each token single-use (a retry reserves it; a protocol fault
 * releases it so a corrected retry may follow): on this process, and, where processes share a
 * state (`--state`, `--workers`), on every one of them (UsedStates). The key is random per process,
 * or derived from MCP_RUN_STATE_KEY so replicas behind a load balancer accept each other's tokens.
 * Tokens are signed, not encrypted: they hold only what the client sent or will be shown anyway.
 */
import type { Logger } from '../log.js';
import type { SharedState } from '../state/shared.js';
import type { CarriedState } from '../steps/interaction.js';
import { nodeCrypto } from '../util/lazy-node.js';
import { invalidParams, isObject, type ProtocolError } from './jsonrpc.js';

export const STATE_KEY_ENV = 'MCP_RUN_STATE_KEY';
export const STATE_TTL_MS = 10 * 60_000;
/** Single-use ids remembered at most (the oldest are forgotten first; they expire soonest). */
const MAX_REMEMBERED = 100_000;

/** What a token is bound to besides its own expiry. */
export interface StateBinding {
  readonly method: string;
  readonly name: string;
  readonly args: unknown;
}

interface Payload {
  readonly v: 1;
  readonly m: string;
  readonly n: string;
  /** sha256 of the arguments in canonical JSON. */
  readonly d: string;
  /** Expiry, ms since the epoch. */
  readonly x: number;
  /** Random id, for single use. */
  readonly j: string;
  readonly s: CarriedState;
}

/**
 * Where the ids of used tokens are reserved across processes that accept each other's tokens
 * (replicas with one MCP_RUN_STATE_KEY, the workers of one server): without it, a token replayed to
 * each of them would be taken once by each.
 */
export interface UsedStates {
  /** Reserves `id` until `ttlMs` from now; false when another process reserved it first. */
  claim(id: string, ttlMs: number): Promise<boolean>;
  /** Gives a reserved id back. */
  release(id: string): Promise<void>;
}

/**
 * UsedStates on a SharedState (`--state`, `--workers`): one claim per token id, expiring with the
 * token. `owner`: this process, so that a claim it retries (an answer lost to a timeout) is still its own.
 */
export function usedStatesOn(state: SharedState, owner: string): UsedStates {
  const key = (id: string) => `rs:${id}`;
  return {
    claim: (id, ttlMs) => state.claim(key(id), Math.max(1, Math.ceil(ttlMs)), owner),
    release: (id) => state.del([key(id)]),
  };
}

export interface OpenedState {
  readonly state: CarriedState;
  readonly id: string;
}

/** The HMAC key: derived from MCP_RUN_STATE_KEY when set, else random for this process. */
export function stateKey(secret: string | undefined, log: Logger): Buffer {
  if (secret === undefined || secret === '') return nodeCrypto().randomBytes(32);
  if (secret.length < 32)
    log.warn(
      `${STATE_KEY_ENV} is shorter than 32 characters; use a long random value (openssl rand -hex 32)`,
    );
  return nodeCrypto().createHash('sha256').update(`mcp-run requestState\0${secret}`).digest();
}

/** Seals a payload with `key` (exported so tests can mint tokens, e.g. an expired one). */
export function sealPayload(key: Buffer, payload: object): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${nodeCrypto().createHmac('sha256', key).update(body).digest('base64url')}`;
}

export function argumentsDigest(args: unknown): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('base64url');
}

export class StateSigner {
  private readonly used = new Map<string, number>();
  private madeKey: Buffer | undefined;

  /** `key` may be a function: the key is then made when a first token is sealed or opened. */
  constructor(
    private readonly keyOf: Buffer | (() => Buffer),
    private readonly ttlMs: number = STATE_TTL_MS,
    private readonly now: () => number = Date.now,
    private readonly shared?: UsedStates,
  ) {}

  private get key(): Buffer {
    this.madeKey ??= typeof this.keyOf === 'function' ? this.keyOf() : this.keyOf;
    return this.madeKey;
  }

  seal(binding: StateBinding, state: CarriedState): string {
    const payload: Payload = {
      v: 1,
      m: binding.method,
      n: binding.name,
      d: argumentsDigest(binding.args),
      x: this.now() + this.ttlMs,
      j: nodeCrypto().randomBytes(12).toString('base64url'),
      s: state,
    };
    return sealPayload(this.key, payload);
  }

  /** Verifies and reserves a token; throws -32602 saying what is wrong with it. */
  async open(token: string, binding: StateBinding): Promise<OpenedState> {
    const payload = this.verify(token);
    const what = `${binding.method} ${JSON.stringify(binding.name)}`;
    if (payload.x <= this.now())
      throw refused(
        `it expired (a requestState is good for ${minutes(this.ttlMs)}); call ${what} again without it`,
      );
    if (payload.m !== binding.method || payload.n !== binding.name)
      throw refused(`it was issued for ${payload.m} ${JSON.stringify(payload.n)}, not ${what}`);
    if (payload.d !== argumentsDigest(binding.args))
      throw refused('it was issued for other arguments; retry with exactly the arguments of the first call');
    this.forgetExpired();
    if (this.used.has(payload.j))
      throw refused(
        `it was already used; each requestState is good for one retry (call ${what} again without it)`,
      );
    this.used.set(payload.j, payload.x);
    if (this.shared !== undefined) {
      let won: boolean;
      try {
        won = await this.shared.claim(payload.j, payload.x - this.now());
      } catch {
        this.used.delete(payload.j);
        // Unchecked, a replayed token could run twice: refused until the shared state answers.
        throw refused(
          `its single use cannot be checked now (the shared state is unreachable); retry ${what}`,
        );
      }
      if (!won) {
        // Another process holds it: this one may take it should that one give it back.
        this.used.delete(payload.j);
        throw refused(
          `it was already used; each requestState is good for one retry (call ${what} again without it)`,
        );
      }
    }
    return { state: payload.s, id: payload.j };
  }

  /** Gives a reserved token back (the retry failed before it did anything). */
  release(opened: OpenedState): void {
    this.used.delete(opened.id);
    // Not given back is only stricter: that retry is refused as used, and the call is made afresh.
    this.shared?.release(opened.id).catch(() => undefined);
  }

  private verify(token: string): Payload {
    const dot = token.indexOf('.');
    const body = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    const { createHmac, timingSafeEqual } = nodeCrypto();
    const expected = createHmac('sha256', this.key).update(body).digest();
    if (dot < 0 || mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      throw refused(
        `it failed its integrity check: it was altered, or issued by another server (replicas must share ${STATE_KEY_ENV})`,
      );
    }
    const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (!isPayload(payload)) throw refused('it is not a requestState this server understands');
    return payload;
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, expiry] of this.used) {
      if (expiry > now && this.used.size < MAX_REMEMBERED) break;
      this.used.delete(id);
    }
  }
}

function minutes(ms: number): string {
  const n = Math.round(ms / 60_000);
  return n === 1 ? '1 minute' : `${n} minutes`;
}

function refused(why: string): ProtocolError {
  return invalidParams(`requestState refused: ${why}`);
}

function isPayload(value: unknown): value is Payload {
  if (!isObject(value) || value.v !== 1 || !isObject(value.s)) return false;
  const { m, n, d, x, j, s } = value;
  return (
    typeof m === 'string' &&
    typeof n === 'string' &&
    typeof d === 'string' &&
    typeof x === 'number' &&
    typeof j === 'string' &&
    isObject(s.values) &&
    Array.isArray(s.done) &&
    (s.result === undefined || typeof s.result === 'string')
  );
}

/** JSON with object keys sorted, so equal arguments always digest the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
