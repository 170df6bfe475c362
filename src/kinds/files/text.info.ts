/**
 * Resource kind `text`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./text.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { variablesSchema } from '../shared/variables.js';

export const textResourceInfo: KindInfo = {
  kind: 'text',
  description: 'Text written in the manifest; a Handlebars template when `uri` has {variables}.',
  configSchema: {
    type: 'object',
    properties: {
      uri: {
        type: 'string',
        minLength: 1,
        description: 'The resource URI; with {name} or {+name} it is a template.',
      },
      text: {
        type: 'string',
        description:
          'The content. For a template URI, a Handlebars template using its variables, e.g. {{name}}.',
      },
      mimeType: {
        type: 'string',
        minLength: 1,
        default: 'text/plain',
        description: 'MIME type (default text/plain).',
      },
      name: { type: 'string', minLength: 1, description: 'Resource name (default: the entry name).' },
      title: { type: 'string', description: 'Human-friendly name shown by clients.' },
      description: { type: 'string', description: 'What the text is for; the model reads this.' },
      variables: variablesSchema,
    },
    required: ['uri', 'text'],
    additionalProperties: false,
  },
};
