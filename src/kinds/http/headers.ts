/**
 * The checks that keep an HTTP request on its origin and in one piece: header names are tokens,
 * header values never contain CR, LF or NUL (no header or request smuggling), the headers that
 * decide where and how the request is framed are not settable, and a request path has no query,
 * fragment or dot segment.
 */
import { CLIENT_OWNED_HEADERS } from '../../util/http-headers.js';
import { HEADER_NAME_PATTERN, headerNameSchema } from '../shared/outbound-auth-schema.js';

const TOKEN_RE = new RegExp(HEADER_NAME_PATTERN);

export { headerNameSchema };

/** [name, reason] for each header that may not be sent; empty when all are fine. */
export function checkHeaders(headers: Readonly<Record<string, string>>): [string, string][] {
  const found: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN_RE.test(name)) found.push([name, `${JSON.stringify(name)} is not a valid header name`]);
    else if (CLIENT_OWNED_HEADERS.has(name.toLowerCase())) {
      found.push([name, `the ${name} header is set by the HTTP client and cannot be declared`]);
    } else if (/[\r\n\0]/.test(value)) {
      found.push([
        name,
        `the value of the ${name} header contains a line break or NUL, which is not allowed`,
      ]);
    }
  }
  return found;
}

const PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
const DOT_SEGMENTS = new Set(['.', '..', '%2e', '.%2e', '%2e.', '%2e%2e']);

/** Throws when `path` is not a plain percent-encoded path below the base URL. */
export function checkRequestPath(path: string): void {
  if (!PATH.test(path) || path.startsWith('//')) {
    throw new Error(`refused the request path ${JSON.stringify(path)}: not a percent-encoded path`);
  }
  if (path.split('/').some((segment) => DOT_SEGMENTS.has(segment.toLowerCase()))) {
    throw new Error(`refused the request path ${JSON.stringify(path)}: it has a "." or ".." segment`);
  }
}

/** localhost, *.localhost, 127.0.0.0/8 and ::1: requests to these never leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
