/**
 * The manifest fields of the interactive steps (`roots`, `ask`, `confirm`, `sample`), common to every
 * tool kind (and `ask` to prompts): their JSON Schema and their TypeScript shapes. Like the other
 * fields a section's entries share (fields.ts), they live in the contract because the registry adds
 * them to each kind's schema (builtin.ts), and the registry sits below the steps: src/steps/ compiles
 * and runs them (steps/entry.ts, steps/plan.ts), the catalog wraps tools with them. No kind reads them.
 */
import type { JsonSchema } from './types.js';

export const DEFAULT_USER_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_SAMPLING_TIMEOUT_MS = 2 * 60_000;

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'array';

export interface FieldChoice {
  readonly const: string;
  readonly title: string;
}

/** One form field; the JSON Schema an elicitation form allows, plus the manifest's `required`. */
export interface FieldConfig {
  readonly type: FieldType;
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly string[];
  readonly enumNames?: readonly string[];
  readonly oneOf?: readonly FieldChoice[];
  readonly items?: {
    readonly type?: 'string';
    readonly enum?: readonly string[];
    readonly anyOf?: readonly FieldChoice[];
  };
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: 'email' | 'uri' | 'date' | 'date-time';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly required?: boolean;
}

export interface FormConfig {
  readonly key?: string;
  readonly message?: string;
  readonly fields: Readonly<Record<string, FieldConfig>>;
  readonly timeoutMs?: number;
}

export interface ConfirmConfig {
  readonly message: string;
  readonly fallback?: 'refuse' | 'proceed';
  readonly timeoutMs?: number;
}

export interface SampleConfig {
  readonly prompt: string;
  readonly maxTokens: number;
  readonly systemPrompt?: string;
  readonly into?: string;
  readonly timeoutMs?: number;
}

/** What a tool entry may declare besides its kind's fields. */
export interface StepsConfig {
  readonly roots?: boolean;
  readonly ask?: FormConfig | readonly FormConfig[];
  readonly confirm?: string | ConfirmConfig;
  readonly sample?: SampleConfig;
}

export const VALUE_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

const timeoutMs = (fallback: number, what: string): JsonSchema => ({
  type: 'integer',
  minimum: 1,
  default: fallback,
  description: `How long to wait for ${what} over a 2025-era connection; then the call ends with an error.`,
});

const choices = (what: string): JsonSchema => ({
  type: 'array',
  minItems: 1,
  description: `${what}: each a value (const) and the label shown for it (title).`,
  items: {
    type: 'object',
    properties: {
      const: { type: 'string', description: 'The value the answer holds.' },
      title: { type: 'string', description: 'The label the user sees.' },
    },
    required: ['const', 'title'],
    additionalProperties: false,
  },
});

const FIELD: JsonSchema = {
  type: 'object',
  description: 'One form field: a flat JSON Schema as elicitation forms allow it.',
  properties: {
    type: {
      enum: ['string', 'number', 'integer', 'boolean', 'array'],
      description: 'The answer type; `array` is a multi-select and needs `items`.',
    },
    title: { type: 'string', description: 'The label shown for the field.' },
    description: { type: 'string', description: 'Help text shown with the field.' },
    default: { description: 'The value the form starts with; also used when the user leaves it out.' },
    enum: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'A single choice among these values (type string).',
    },
    enumNames: {
      type: 'array',
      items: { type: 'string' },
      description: 'Labels for the `enum` values, in the same order (the older way to title choices).',
    },
    oneOf: choices('A single choice with labels (type string)'),
    items: {
      type: 'object',
      description: 'The choices of a multi-select (type array): `enum`, or `anyOf` with labels.',
      properties: {
        type: { const: 'string', description: 'Choices are strings.' },
        enum: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'The choices.' },
        anyOf: choices('The choices with labels'),
      },
      additionalProperties: false,
    },
    minLength: { type: 'integer', minimum: 0, description: 'Shortest accepted text.' },
    maxLength: { type: 'integer', minimum: 0, description: 'Longest accepted text.' },
    format: {
      enum: ['email', 'uri', 'date', 'date-time'],
      description: 'A text format the client may check.',
    },
    minimum: { type: 'number', description: 'Smallest accepted number.' },
    maximum: { type: 'number', description: 'Largest accepted number.' },
    minItems: { type: 'integer', minimum: 0, description: 'Fewest choices of a multi-select.' },
    maxItems: { type: 'integer', minimum: 0, description: 'Most choices of a multi-select.' },
    required: {
      type: 'boolean',
      description: 'The user must fill it in (default: true unless the field has a `default`).',
    },
  },
  required: ['type'],
  additionalProperties: false,
};

const FORM: JsonSchema = {
  type: 'object',
  description: 'A form the user fills in before the tool runs.',
  properties: {
    key: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_-]*$',
      description: 'The name of this question in a 2026 `inputRequests` map (default: ask, ask_2, …).',
    },
    message: {
      type: 'string',
      description: 'What the user is asked (a template over the arguments and earlier answers).',
    },
    fields: {
      type: 'object',
      minProperties: 1,
      description: 'The fields by name; each answer becomes a value the tool uses as {{name}} or :name.',
      propertyNames: { pattern: VALUE_NAME },
      additionalProperties: FIELD,
    },
    timeoutMs: timeoutMs(DEFAULT_USER_TIMEOUT_MS, 'the answer'),
  },
  required: ['fields'],
  additionalProperties: false,
};

/** `ask`: alone for prompts, and among the steps of every tool. */
export const ASK_SCHEMA: JsonSchema = {
  description:
    'Ask the user for values before running (an elicitation form): one form, or a list of forms asked in order.',
  oneOf: [FORM, { type: 'array', minItems: 1, items: FORM }],
};

export const STEP_FIELDS: Readonly<Record<string, JsonSchema>> = {
  roots: {
    type: 'boolean',
    description:
      "Ask the client for its roots first: values `roots` (list of {uri, name}) and `root` (the first root's folder).",
  },
  ask: ASK_SCHEMA,
  confirm: {
    description:
      'Ask the user to confirm before running: a message (a template over the arguments and answers), or {message, fallback}.',
    oneOf: [
      { type: 'string' },
      {
        type: 'object',
        properties: {
          message: { type: 'string', description: 'The question, e.g. "Delete order {{id}}?".' },
          fallback: {
            enum: ['refuse', 'proceed'],
            default: 'refuse',
            description: 'When the client cannot show a confirmation: refuse to run (default) or run anyway.',
          },
          timeoutMs: timeoutMs(DEFAULT_USER_TIMEOUT_MS, 'the answer'),
        },
        required: ['message'],
        additionalProperties: false,
      },
    ],
  },
  sample: {
    type: 'object',
    description:
      "Ask the client's model: with `into`, before the action (its reply becomes that value); without, after it (the prompt sees {{result}} and the reply becomes the tool's result).",
    properties: {
      prompt: { type: 'string', description: 'The message to the model (a template).' },
      maxTokens: { type: 'integer', minimum: 1, description: 'The most tokens the model may answer with.' },
      systemPrompt: { type: 'string', description: 'A system prompt for the model (a template).' },
      into: {
        type: 'string',
        pattern: VALUE_NAME,
        description: 'Run before the action and keep the reply as this value.',
      },
      timeoutMs: timeoutMs(DEFAULT_SAMPLING_TIMEOUT_MS, 'the reply'),
    },
    required: ['prompt', 'maxTokens'],
    additionalProperties: false,
  },
};
