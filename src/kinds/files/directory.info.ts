/**
 * Resource kind `directory`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./directory.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { DEFAULT_MAX_BYTES } from './defaults.js';

export const DEFAULT_MAX_FILES = 1000;

export const directoryResourceInfo: KindInfo = {
  kind: 'directory',
  description: 'One resource per file of a folder that matches a glob.',
  configSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'The folder, relative to the manifest folder; files must stay inside it.',
      },
      glob: {
        type: 'string',
        minLength: 1,
        default: '**/*',
        description:
          'Which files to serve, relative to the folder: ** (any folders), *, ?, {a,b}. Dotfiles only when the glob spells the dot.',
      },
      uri: {
        type: 'string',
        minLength: 1,
        description:
          'URI prefix; each file is the prefix plus its relative path (default: file:// and the folder).',
      },
      description: { type: 'string', description: 'Description given to every file of the folder.' },
      mimeType: {
        type: 'string',
        minLength: 1,
        description: 'MIME type of every file (default: guessed per extension).',
      },
      maxBytes: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_BYTES,
        description: 'Largest file served, in bytes (default 10 MiB).',
      },
      maxFiles: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_FILES,
        description: 'At most this many files are listed (default 1000).',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
};
