/**
 * Source kind `http`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./source.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { headerNameSchema } from './headers.js';

const secretString = { type: 'string', minLength: 1 };
const urlString = { type: 'string', pattern: '^https?://' };

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
      auth: {
        type: 'object',
        description:
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest reference, not a JS template.
          'Credentials added to every request and redacted from results; use ${env:NAME} or ${file:/path} values.',
        minProperties: 1,
        maxProperties: 1,
        properties: {
          bearer: { ...secretString, description: 'A token sent as `Authorization: Bearer <token>`.' },
          basic: {
            type: 'object',
            description: 'HTTP basic authentication.',
            properties: {
              username: { type: 'string', description: 'The user name.' },
              password: { type: 'string', description: 'The password.' },
            },
            required: ['username', 'password'],
            additionalProperties: false,
          },
          oauth: {
            type: 'object',
            description:
              'OAuth 2 client credentials: an access token from `tokenUrl`, cached and fetched again before it expires, sent as `Authorization: Bearer`.',
            properties: {
              tokenUrl: { ...urlString, description: "The authorization server's token endpoint." },
              clientId: { type: 'string', minLength: 1, description: 'This client’s id.' },
              clientSecret: {
                ...secretString,
                // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest reference, not a JS template.
                description: 'This client’s secret; use ${env:NAME} or ${file:/run/secrets/name}.',
              },
              scopes: {
                type: 'array',
                items: { type: 'string', minLength: 1 },
                description: 'Scopes asked for.',
              },
              audience: {
                type: 'string',
                minLength: 1,
                description: 'The `audience` parameter, where the server wants one.',
              },
              resource: {
                ...urlString,
                description: 'The RFC 8707 `resource` parameter, where the server wants one.',
              },
            },
            required: ['tokenUrl', 'clientId', 'clientSecret'],
            additionalProperties: false,
          },
          tokenExchange: {
            type: 'object',
            description:
              "OAuth 2 token exchange (RFC 8693): each caller's verified access token is traded at `tokenUrl` for an upstream token of its own (cached per caller); the caller's token is never sent to the API.",
            properties: {
              tokenUrl: { ...urlString, description: "The authorization server's token endpoint." },
              clientId: { type: 'string', minLength: 1, description: 'This client’s id.' },
              clientSecret: { ...secretString, description: 'This client’s secret.' },
              audience: { type: 'string', minLength: 1, description: 'The upstream API the token is for.' },
              scope: { type: 'string', minLength: 1, description: 'Scopes asked for, space-separated.' },
              resource: { ...urlString, description: 'The RFC 8707 `resource` parameter.' },
            },
            required: ['tokenUrl', 'clientId', 'clientSecret'],
            additionalProperties: false,
          },
          apiKey: {
            type: 'object',
            description:
              'An API key in a header (`header: X-Api-Key`) or a query parameter (`query: api_key`).',
            properties: {
              header: { ...headerNameSchema, description: 'The header that carries the key.' },
              query: {
                type: 'string',
                minLength: 1,
                description: 'The query parameter that carries the key.',
              },
              value: { ...secretString, description: 'The key.' },
            },
            required: ['value'],
            minProperties: 2,
            maxProperties: 2,
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
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
