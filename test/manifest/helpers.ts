/** A tiny kind registry and helpers for the manifest tests. */
import { type Diagnostic, ManifestError } from '../../src/errors.js';
import { loadManifestText } from '../../src/manifest/load.js';
import type { EntrySection, KindSchemas, LoadedManifest } from '../../src/manifest/types.js';

const common = { description: { type: 'string' }, title: { type: 'string' } };
const input = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: {
      type: { enum: ['string', 'integer', 'number', 'boolean', 'array', 'object'] },
      maximum: { type: 'number' },
      default: {},
      description: { type: 'string' },
    },
  },
};

const SCHEMAS: Record<EntrySection, Record<string, object>> = {
  sources: {
    sqlite: {
      type: 'object',
      properties: { kind: { const: 'sqlite' }, path: { type: 'string' }, readOnly: { type: 'boolean' } },
      required: ['kind', 'path'],
      additionalProperties: false,
    },
  },
  tools: {
    sql: {
      type: 'object',
      properties: {
        kind: { const: 'sql' },
        ...common,
        source: { type: 'string' },
        sql: { type: 'string' },
        input,
        maxRows: { type: 'integer', minimum: 1, maximum: 10000 },
      },
      required: ['kind', 'source', 'sql'],
      additionalProperties: false,
    },
    http: {
      type: 'object',
      properties: {
        kind: { const: 'http' },
        ...common,
        source: { type: 'string' },
        method: { enum: ['GET', 'POST', 'PUT', 'DELETE'] },
        path: { type: 'string', pattern: '^/' },
        input,
        auth: {
          oneOf: [
            {
              type: 'object',
              properties: { bearer: { type: 'string' } },
              required: ['bearer'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: { basic: { type: 'string' } },
              required: ['basic'],
              additionalProperties: false,
            },
          ],
        },
        headers: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      },
      required: ['kind', 'method', 'path'],
      additionalProperties: false,
    },
    shell: {
      type: 'object',
      properties: {
        kind: { const: 'shell' },
        ...common,
        command: { type: 'array', items: { type: 'string' }, minItems: 1 },
        input,
      },
      required: ['kind', 'command'],
      additionalProperties: false,
    },
  },
  resources: {
    file: {
      type: 'object',
      properties: { kind: { const: 'file' }, ...common, path: { type: 'string' } },
      required: ['kind', 'path'],
      additionalProperties: false,
    },
  },
  prompts: {
    template: {
      type: 'object',
      properties: {
        kind: { const: 'template' },
        ...common,
        arguments: { type: 'object' },
        messages: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: { role: { enum: ['user', 'assistant'] }, text: { type: 'string' } },
            required: ['role', 'text'],
            additionalProperties: false,
          },
        },
      },
      required: ['kind', 'messages'],
      additionalProperties: false,
    },
  },
};

export const kinds: KindSchemas = {
  kinds: (section) => Object.keys(SCHEMAS[section]),
  schema: (section, kind) => SCHEMAS[section][kind],
  defaultKind: (section) => (section === 'prompts' ? 'template' : undefined),
};

/** Joins lines into a YAML document, so tests can count lines at a glance. */
export const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

export function load(text: string, env: NodeJS.ProcessEnv = {}): LoadedManifest {
  return loadManifestText(text, 'mcp.yaml', kinds, env);
}

/** The diagnostics a manifest fails with; fails the test if it loads. */
export function failures(text: string, env: NodeJS.ProcessEnv = {}): readonly Diagnostic[] {
  try {
    load(text, env);
  } catch (e) {
    if (e instanceof ManifestError) return e.diagnostics;
    throw e;
  }
  throw new Error('expected the manifest to fail');
}

/** One-line summaries: `CODE line:col path`, easy to compare as a list. */
export const brief = (ds: readonly Diagnostic[]): string[] =>
  ds.map((d) => `${d.code} ${d.line ?? '-'}:${d.col ?? '-'} ${d.path ?? ''}`.trimEnd());
