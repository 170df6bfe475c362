/**
 * What a request must pass before the protocol sees it: the DNS-rebinding checks on `Host` and
 * `Origin`, CORS for allowed browser origins, and the media types of `Accept` and `Content-Type`.
 *
 * DNS rebinding: a web page on evil.example can make the browser resolve evil.example to 127.0.0.1
 * and talk to a local server. The browser still sends `Host: evil.example` and its `Origin`, so a
 * loopback server that accepts only loopback names in both is out of reach (digest §6.2, §6.3).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface GuardOptions {
  /** The address the server binds to. */
  readonly bindHost: string;
  /** Extra accepted `Host` names (`name` for any port, or `name:port`). */
  readonly allowedHosts: readonly string[];
  /** Extra accepted browser origins, exact (`https://app.example.com`). */
  readonly allowedOrigins: readonly string[];
  /**
   * The names a wildcard bind answers to (`interfaceAddresses()`), for what checks `Host` on every
   * bind: `mcp-run dev`'s pages. Absent, a wildcard bind checks Host only when `allowedHosts` are
   * given, since a container is reached by service names the server cannot know.
   */
  readonly wildcardNames?: readonly string[];
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** This machine's interface addresses: what a client on the network puts in `Host` for a wildcard bind. */
export function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** Brackets an IPv6 literal the way it appears in a Host header or URL. */
export const urlHost = (host: string): string =>
  host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;

export class Guards {
  private readonly checkHosts: boolean;
  private readonly hostNames = new Set<string>();
  private readonly hostsWithPort = new Set<string>();
  private readonly origins: ReadonlySet<string>;

  constructor(options: GuardOptions) {
    const bindIsWildcard = ['0.0.0.0', '::', '[::]'].includes(options.bindHost);
    // On a wildcard bind the public names are unknown: Host is checked only when names were given.
    this.checkHosts =
      !bindIsWildcard || options.allowedHosts.length > 0 || options.wildcardNames !== undefined;
    for (const name of LOOPBACK_NAMES) this.hostNames.add(name);
    const bound = bindIsWildcard ? (options.wildcardNames ?? []) : [options.bindHost];
    for (const name of bound) this.hostNames.add(urlHost(name).toLowerCase());
    for (const entry of options.allowedHosts) {
      const lower = entry.toLowerCase();
      if (/:\d+$/.test(lower) && !lower.endsWith(']')) this.hostsWithPort.add(lower);
      else this.hostNames.add(urlHost(lower));
    }
    this.origins = new Set(options.allowedOrigins.map((o) => o.replace(/\/$/, '').toLowerCase()));
  }

  /** The last Host header judged and its verdict: clients send the same one on every request. */
  private lastHost: string | undefined;
  private lastHostFault: string | undefined;

  /** Undefined when the Host header is acceptable, else why not. */
  hostFault(req: IncomingMessage): string | undefined {
    if (!this.checkHosts) return undefined;
    const given = req.headers.host;
    if (given === undefined || given !== this.lastHost) {
      this.lastHostFault = this.judgeHost(given);
      this.lastHost = given;
    }
    return this.lastHostFault;
  }

  private judgeHost(given: string | undefined): string | undefined {
    const host = given?.toLowerCase();
    if (host === undefined || host === '') return 'the request has no Host header';
    if (this.hostsWithPort.has(host)) return undefined;
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
    return this.hostNames.has(name)
      ? undefined
      : `Host "${host}" is not allowed (DNS rebinding protection; --allowed-host names another)`;
  }

  /** Undefined when there is no Origin or it is allowed, else why not. */
  originFault(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    return this.originAllowed(origin) ? undefined : `Origin "${origin}" is not allowed`;
  }

  originAllowed(origin: string): boolean {
    const lower = origin.toLowerCase();
    if (this.origins.has(lower)) return true;
    let url: URL;
    try {
      url = new URL(lower);
    } catch {
      return false; // includes the opaque origin "null"
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
  }
}

const ALLOWED_REQUEST_HEADERS = [
  'accept',
  'authorization',
  'content-type',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
  'x-api-key',
];
const EXPOSED_HEADERS = 'Mcp-Session-Id, WWW-Authenticate';

/** CORS headers for a request whose Origin passed `originFault` (none when there is no Origin). */
export function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = req.headers.origin;
  if (origin === undefined) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    Vary: 'Origin',
  };
}

/** Answers an OPTIONS request: a CORS preflight from an allowed origin, or a plain "what is allowed". */
export function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  const headers: Record<string, string> = { ...corsHeaders(req), Allow: 'GET, POST, DELETE, OPTIONS' };
  if (req.headers.origin !== undefined) {
    headers['Access-Control-Allow-Methods'] = 'GET, POST, DELETE, OPTIONS';
    headers['Access-Control-Allow-Headers'] = allowedRequestHeaders(
      req.headers['access-control-request-headers'],
    );
    headers['Access-Control-Max-Age'] = '600';
  }
  res.writeHead(204, headers);
  res.end();
}

/** The MCP headers, plus any requested `Mcp-Param-*` (their names come from tool schemas). */
function allowedRequestHeaders(requested: string | undefined): string {
  const names = new Set(ALLOWED_REQUEST_HEADERS);
  for (const name of (requested ?? '').split(',')) {
    const trimmed = name.trim().toLowerCase();
    if (trimmed.startsWith('mcp-param-')) names.add(trimmed);
  }
  return [...names].join(', ');
}

/** Whether an Accept header admits a media type: exactly, or through a type or any-type wildcard. */
export function accepts(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined) return false;
  const [type] = mediaType.split('/');
  for (const part of accept.split(',')) {
    const range = part.split(';')[0]!.trim().toLowerCase();
    if (range === mediaType || range === '*/*' || range === `${type}/*`) return true;
  }
  return false;
}

export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  if (contentType === 'application/json') return true;
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}
