/**
 * Resource kind `file`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./file.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { variablesSchema } from '../shared/variables.js';
import { DEFAULT_MAX_BYTES } from './defaults.js';

export const fileResourceInfo: KindInfo = {
  kind: 'file',
  description: 'One file as a resource, or a URI template mapped onto files (`uri: notes://{name}`).',
  configSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description:
          'The file, relative to the manifest folder. With a template `uri`, use its {variables} here.',
      },
      uri: {
        type: 'string',
        minLength: 1,
        description:
          'The resource URI (default: file:// and the real path). With {name} or {+name} it is a template.',
      },
      name: { type: 'string', minLength: 1, description: 'Resource name (default: the entry name).' },
      title: { type: 'string', description: 'Human-friendly name shown by clients.' },
      description: { type: 'string', description: 'What the file holds; the model reads this.' },
      mimeType: {
        type: 'string',
        minLength: 1,
        description: 'MIME type (default: guessed from the extension).',
      },
      root: {
        type: 'string',
        minLength: 1,
        description:
          'The folder the file must stay inside, after following symlinks (default: the manifest folder).',
      },
      maxBytes: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_BYTES,
        description: 'Largest file served, in bytes (default 10 MiB).',
      },
      variables: variablesSchema,
    },
    required: ['path'],
    additionalProperties: false,
  },
};
