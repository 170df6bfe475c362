/**
 * The envelope: what every manifest has whatever its kinds. Validation step 1 checks it (sections,
 * names, that each entry is a mapping with a string `kind`); step 2 checks each entry against its
 * kind's schema. Splitting the two keeps an unknown kind one clear error instead of a oneOf wall.
 */
import { ENTRY_SECTIONS, type EntrySection } from './types.js';

/** Tool and prompt names are what a client shows and calls; source and resource names stay short. */
export const NAME_PATTERNS: Readonly<Record<EntrySection, string>> = {
  sources: '^[A-Za-z0-9_.-]{1,64}$',
  tools: '^[A-Za-z0-9_.-]{1,128}$',
  resources: '^[A-Za-z0-9_.-]{1,64}$',
  prompts: '^[A-Za-z0-9_.-]{1,128}$',
};

export const SINGULAR: Readonly<Record<EntrySection, string>> = {
  sources: 'source',
  tools: 'tool',
  resources: 'resource',
  prompts: 'prompt',
};

const SECTION_DESCRIPTIONS: Readonly<Record<EntrySection, string>> = {
  sources:
    'Named connections shared by entries (databases, HTTP APIs). Each entry picks an implementation with `kind`.',
  tools: 'Tools the model can call, by name. Each entry picks an implementation with `kind`.',
  resources: 'Resources (files, folders, schemas) clients can read, by name.',
  prompts: 'Prompt templates, by name.',
};

const SERVER_SCHEMA = {
  type: ['object', 'null'],
  description: 'What the server tells clients about itself.',
  properties: {
    name: {
      type: 'string',
      description: 'Server name shown to clients (default: mcp-run).',
    },
    version: { type: 'string', description: 'Server version shown to clients (default: 0.0.0).' },
    title: { type: 'string', description: 'Human-readable server title.' },
    description: { type: 'string', description: 'What the server offers.' },
    instructions: { type: 'string', description: 'Guidance for the model on how to use this server.' },
    pageSize: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description: 'Items per page in list results.',
    },
  },
  additionalProperties: false,
} as const;

/**
 * The envelope schema. `kindOptional(section)` marks sections whose entries may omit `kind` (they
 * get a default one); the loader fills defaults in before validating, so it passes nothing here,
 * while the editor schema must accept the omission.
 */
export function envelopeSchema(kindOptional: (section: EntrySection) => boolean = () => false): object {
  const sections: Record<string, object> = {};
  for (const section of ENTRY_SECTIONS) {
    sections[section] = {
      // An empty section (`tools:` with nothing under it) is allowed, as a section still being written.
      type: ['object', 'null'],
      description: SECTION_DESCRIPTIONS[section],
      propertyNames: { pattern: NAME_PATTERNS[section] },
      additionalProperties: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        ...(kindOptional(section) ? {} : { required: ['kind'] }),
      },
    };
  }
  return {
    type: 'object',
    properties: { server: SERVER_SCHEMA, ...sections },
    additionalProperties: false,
  };
}
