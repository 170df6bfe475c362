/**
 * A rate as a manifest writes it: `60/minute`, `1000/day`, `10/second`, `500/hour`. Shared by the
 * schema of every `limits:` block (manifest/envelope.ts, kinds/contract/fields.ts) and the limiter
 * that counts them (governance/limits/), so the two cannot disagree on what a rate means.
 */
import type { JsonSchema } from './json-schema.js';

const UNITS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

export const RATE_PATTERN = '^[1-9][0-9]{0,8}/(second|minute|hour|day)$';

export interface Rate {
  /** How many may pass in any window of `windowMs`. */
  readonly count: number;
  readonly windowMs: number;
  /** As written: `60/minute`. */
  readonly text: string;
}

/** The rate a string names, or undefined when it does not match RATE_PATTERN. */
export function parseRate(text: string): Rate | undefined {
  const m = /^([1-9][0-9]{0,8})\/(second|minute|hour|day)$/.exec(text);
  if (m === null) return undefined;
  return { count: Number(m[1]), windowMs: UNITS[m[2] as keyof typeof UNITS], text };
}

const RATE_SCHEMA: JsonSchema = { type: 'string', pattern: RATE_PATTERN };

/** `calls:` and `concurrent:` of a `limits:` block; `what` says whose calls are counted. */
export function limitsSchema(what: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    description: `Limits per caller on ${what} (docs/governance.md#limits). A caller is the OAuth subject (else its client id), else the client's address; on stdio there is one caller.`,
    properties: {
      calls: {
        description:
          'How many calls one caller may make in any window of that length: `60/minute`, or a list (`[10/second, 1000/day]`) that must all hold. Counted over a sliding window: never more than the number in any such span, across a window edge too.',
        anyOf: [RATE_SCHEMA, { type: 'array', items: RATE_SCHEMA, minItems: 1, maxItems: 4 }],
      },
      concurrent: {
        type: 'integer',
        minimum: 1,
        maximum: 10000,
        description: 'How many calls of one caller may run at once; one more is refused, not queued.',
      },
      ...extra,
    },
    additionalProperties: false,
  };
}
