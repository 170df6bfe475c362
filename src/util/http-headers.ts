/**
 * Headers an HTTP client owns: letting a manifest value or a caller set one would change the
 * request's target or its framing. The http kind refuses them (kinds/http/headers.ts) and the OpenAPI
 * importer never turns them into arguments (openapi/tool.ts), so the one list lives below both.
 */
export const CLIENT_OWNED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);
