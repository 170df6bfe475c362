/**
 * Prompt kind `template`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./template.ts.
 */

import { FROM_CLAIM_FIELD } from '../contract/fields.js';
import type { KindInfo } from '../contract/kinds.js';
import { contentItemProperties } from '../shared/content-schema.js';
import { valueListProperties } from '../shared/variables.js';

export const templatePromptInfo: KindInfo = {
  kind: 'template',
  description: 'Messages written as Handlebars templates over declared arguments.',
  configSchema: {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'Human-friendly name shown by clients.' },
      description: { type: 'string', description: 'What the prompt is for.' },
      arguments: {
        type: 'object',
        description: 'The arguments, by name; the messages use them as {{name}}.',
        propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
        additionalProperties: {
          type: 'object',
          properties: {
            title: { type: 'string', description: 'Human-friendly name shown by clients.' },
            description: { type: 'string', description: 'What to pass.' },
            required: {
              type: 'boolean',
              default: false,
              description: 'The prompt cannot be used without it.',
            },
            ...valueListProperties,
            ...FROM_CLAIM_FIELD,
          },
          additionalProperties: false,
        },
      },
      messages: {
        type: 'array',
        minItems: 1,
        description:
          'The messages the prompt produces, in order; each has a role and one of text, image, audio, resource, resourceLink.',
        items: {
          type: 'object',
          properties: {
            role: {
              enum: ['user', 'assistant'],
              default: 'user',
              description: 'Who says it (default user).',
            },
            ...contentItemProperties,
            text: { type: 'string', description: 'A Handlebars template, e.g. "Summarise {{topic}}."' },
          },
          additionalProperties: false,
        },
      },
    },
    required: ['messages'],
    additionalProperties: false,
  },
};
