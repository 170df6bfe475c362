/**
 * Tool kind `content`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./tool.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { contentItemProperties } from '../shared/content-schema.js';

export const contentToolInfo: KindInfo = {
  kind: 'content',
  description: 'Answers with content written in the manifest: text templates, images, audio, resources.',
  configSchema: {
    type: 'object',
    properties: {
      content: {
        type: 'array',
        minItems: 1,
        description:
          'The content items, in order; each has one of text, image, audio, resource, resourceLink (default: the JSON of `structured` as text).',
        items: { type: 'object', properties: contentItemProperties, additionalProperties: false },
      },
      structured: {
        type: 'object',
        description:
          'Sent as structuredContent. A string that is exactly "{{name}}" becomes the argument with its JSON type; other strings are templates.',
      },
      isError: {
        type: 'boolean',
        default: false,
        description: 'Mark the result as an error (for stubs of failing tools).',
      },
    },
    additionalProperties: false,
  },
};
