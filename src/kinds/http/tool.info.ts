/**
 * Tool kind `http`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./tool.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { outputSchema } from '../shared/output-shape.js';
import { headerNameSchema } from './headers.js';

export const httpToolInfo: KindInfo = {
  kind: 'http',
  description: 'Calls a REST API: one request to an http source, arguments placed as data, never as text.',
  configSchema: {
    type: 'object',
    properties: {
      source: {
        type: 'string',
        minLength: 1,
        description: 'The http source to call (its baseUrl and auth).',
      },
      method: {
        enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        default: 'GET',
        description: 'The HTTP method. GET and HEAD are read-only; DELETE is destructive.',
      },
      path: {
        type: 'string',
        minLength: 1,
        description:
          'Below the base URL, e.g. /repos/{owner}/{repo}/issues. Each {name} is an argument, encoded as one segment.',
      },
      query: {
        type: 'object',
        description:
          'Query parameters: "{{name}}" is the argument itself (arrays repeat the parameter), other strings are templates. Default: unused arguments, for GET/HEAD/DELETE/OPTIONS.',
      },
      headers: {
        type: 'object',
        description: 'Request headers; values may use {{name}}. Values with line breaks are refused.',
        propertyNames: headerNameSchema,
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      },
      body: {
        description:
          'The body as data: "{{name}}" is the typed argument, other strings are templates. Default: unused arguments as JSON, for POST/PUT/PATCH.',
      },
      bodyType: {
        enum: ['json', 'form', 'text'],
        default: 'json',
        description: 'json (the tree, serialised), form (an object, urlencoded) or text (a template string).',
      },
      output: outputSchema('Shapes a JSON answer before the model sees it.'),
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        description: "Time limit of one call, retries and their waits included (default: the source's).",
      },
      retries: {
        type: 'integer',
        minimum: 0,
        maximum: 10,
        description: "Retries of an idempotent request on 429/502/503/504 (default: the source's).",
      },
    },
    required: ['source', 'path'],
    additionalProperties: false,
  },
};
