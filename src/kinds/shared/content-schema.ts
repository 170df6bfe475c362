/**
 * The schema of a content item (text, image, audio, resource, resource link), for the kinds' info
 * modules: apart from content-blocks.ts, which compiles the items, so that validating a manifest
 * loads no template engine.
 */
import type { JsonSchema } from '../contract/types.js';

const media = (what: string): JsonSchema => ({
  type: 'object',
  description: `${what} read from a file at load time (at most 1 MiB) and sent base64-encoded.`,
  properties: {
    path: { type: 'string', minLength: 1, description: 'The file, relative to the manifest folder.' },
    mimeType: {
      type: 'string',
      minLength: 1,
      description: 'MIME type (default: guessed from the extension).',
    },
  },
  required: ['path'],
  additionalProperties: false,
});

/** The schema properties of one content item; the caller adds its own (a message's `role`). */
export const contentItemProperties: Readonly<Record<string, JsonSchema>> = {
  text: {
    type: 'string',
    description: 'Text: a Handlebars template over the arguments, e.g. "Hi {{name}}."',
  },
  image: media('An image'),
  audio: media('An audio clip'),
  resource: {
    type: 'object',
    description: 'An embedded resource: `text` written here, or the contents of the file at `path`.',
    properties: {
      uri: {
        type: 'string',
        minLength: 1,
        description: 'Its URI, a Handlebars template over the arguments (rendered as is).',
      },
      text: { type: 'string', description: 'The text, a Handlebars template over the arguments.' },
      path: {
        type: 'string',
        minLength: 1,
        description: 'A file (at most 1 MiB), sent as text for text MIME types, else as a base64 blob.',
      },
      mimeType: {
        type: 'string',
        minLength: 1,
        description: 'MIME type (default: text/plain for `text`, else guessed from the extension).',
      },
    },
    required: ['uri'],
    additionalProperties: false,
  },
  resourceLink: {
    type: 'object',
    description: 'A link to a resource the client may read.',
    properties: {
      uri: {
        type: 'string',
        minLength: 1,
        description: 'Its URI, a Handlebars template over the arguments.',
      },
      name: { type: 'string', minLength: 1, description: 'Its name.' },
      description: { type: 'string', description: 'What it holds.' },
      mimeType: { type: 'string', minLength: 1, description: 'Its MIME type.' },
    },
    required: ['uri', 'name'],
    additionalProperties: false,
  },
};
