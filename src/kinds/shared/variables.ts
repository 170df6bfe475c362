/**
 * Declared variables and prompt arguments: the `enum` that restricts their values and the lists
 * that feed completion/complete.
 */
import type { ArgumentHint, JsonSchema } from '../contract/types.js';

export interface VariableConfig {
  readonly description?: string;
  readonly enum?: readonly string[];
  readonly complete?: readonly string[];
}

/** Completions are capped like the protocol's completion result (at most 100 values). */
export const MAX_COMPLETIONS = 100;

/** `enum` and `complete`: the value lists of a variable or a prompt argument. */
export const valueListProperties: Record<string, JsonSchema> = {
  enum: {
    type: 'array',
    items: { type: 'string' },
    minItems: 1,
    description: 'The only values allowed; also offered as completions.',
  },
  complete: {
    type: 'array',
    items: { type: 'string' },
    description: 'Values offered as completions (other values stay allowed).',
  },
};

export const variablesSchema: JsonSchema = {
  type: 'object',
  description:
    'The URI template variables, by name: a description, the allowed values (`enum`) and suggestions for completion (`complete`).',
  additionalProperties: {
    type: 'object',
    properties: {
      description: { type: 'string', description: 'What the variable means.' },
      ...valueListProperties,
      fromClaim: {
        type: 'string',
        minLength: 1,
        description:
          "Fill the variable from this claim of the caller's verified OAuth access token (server.auth); a read of the URI with another value is not found (docs/security.md).",
      },
    },
    additionalProperties: false,
  },
};

/** Candidates starting with `prefix` (case-insensitive), at most MAX_COMPLETIONS. */
export function completeFrom(candidates: readonly string[] | undefined, prefix: string): string[] {
  if (!candidates) return [];
  const p = prefix.toLowerCase();
  return candidates.filter((c) => c.toLowerCase().startsWith(p)).slice(0, MAX_COMPLETIONS);
}

/** The values completion offers for one variable: its enum, plus its suggestion list. */
export function completionList(variable: VariableConfig | undefined): string[] | undefined {
  if (!variable) return undefined;
  return [...new Set([...(variable.enum ?? []), ...(variable.complete ?? [])])];
}

/** `record[key]` only when it is the record's own entry (a client may ask for "constructor"). */
export function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * What a mirrored tool needs of the declared variables or arguments: each one's description and
 * fixed value list (`complete` is only a suggestion, so it is left out), as a field to spread in;
 * nothing when none says anything.
 */
export function optionalHints(declared: Readonly<Record<string, VariableConfig>> | undefined): {
  argumentHints?: Readonly<Record<string, ArgumentHint>>;
} {
  const hints: Record<string, ArgumentHint> = {};
  for (const [name, { description, enum: values }] of Object.entries(declared ?? {})) {
    if (description === undefined && values === undefined) continue;
    Object.defineProperty(hints, name, {
      value: {
        ...(description !== undefined && { description }),
        ...(values !== undefined && { enum: values }),
      },
      enumerable: true,
    });
  }
  return Object.keys(hints).length > 0 ? { argumentHints: hints } : {};
}
