/**
 * Source kind `http`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./source.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { OUTBOUND_AUTH_SCHEMA } from '../shared/outbound-auth-schema.js';
import { headerNameSchema } from './headers.js';

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_RETRIES = 2;

export const httpSourceInfo: KindInfo = {
  kind: 'http',
  description: 'A REST API at one base URL (keep-alive pool, auth, timeouts, retries), for `http` tools.',
  configSchema: {
    type: 'object',
    properties: {
      baseUrl: {
        type: 'string',
        minLength: 1,
        description:
          'The API root, http:// or https://, e.g. https://api.github.com or https://example.com/api/v2. Tools add their path below it.',
      },
      headers: {
        type: 'object',
        description: 'Headers sent with every request (tools may override them), e.g. Accept.',
        propertyNames: headerNameSchema,
        additionalProperties: { type: 'string' },
      },
      auth: OUTBOUND_AUTH_SCHEMA,
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_HTTP_TIMEOUT_MS,
        description:
          'Time limit of one call, from sending to the last byte of the answer, retries and their waits included.',
      },
      maxConcurrent: {
        type: 'integer',
        minimum: 1,
        description: 'At most this many requests at once (more wait their turn). Default: no limit.',
      },
      maxResponseBytes: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_RESPONSE_BYTES,
        description: 'A larger response is not read; the call fails and says so. Default 5 MiB.',
      },
      retries: {
        type: 'integer',
        minimum: 0,
        maximum: 10,
        default: DEFAULT_RETRIES,
        description: 'Retries of idempotent requests on 429, 502, 503, 504 or a reset connection.',
      },
    },
    required: ['baseUrl'],
    additionalProperties: false,
  },
};
