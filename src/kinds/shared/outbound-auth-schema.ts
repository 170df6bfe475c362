/**
 * The schema of `auth:` on a source that calls out over HTTP (`http`, `mcp`): static credentials,
 * OAuth client credentials or a token exchange. The code that applies it: outbound-auth.ts, oauth.ts.
 */
import type { JsonSchema } from '../contract/types.js';

const secretString = { type: 'string', minLength: 1 };
const urlString = { type: 'string', pattern: '^https?://' };

/** RFC 9110 token characters. */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

export const headerNameSchema: JsonSchema = {
  type: 'string',
  pattern: HEADER_NAME_PATTERN,
  description: "A header name (letters, digits and !#$%&'*+.^_`|~-).",
};

export const OUTBOUND_AUTH_SCHEMA: JsonSchema = {
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
      description: 'An API key in a header (`header: X-Api-Key`) or a query parameter (`query: api_key`).',
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
};
