/**
 * RFC 9728 protected resource metadata and the RFC 6750 `WWW-Authenticate` challenges that point
 * to it. The document is served at `/.well-known/oauth-protected-resource` followed by the
 * resource's path (RFC 9728 §3.1), and at the bare well-known path for clients that try it first.
 */
export interface ResourceMetadataOptions {
  /** The resource identifier (this server's canonical URI, e.g. `https://mcp.example.com/mcp`). */
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported: readonly string[];
  readonly resourceName?: string;
}

export const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The metadata URL for a resource: the well-known prefix inserted before its path. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** The paths the document is served at on this server. */
export function metadataPaths(resource: string): readonly string[] {
  return [...new Set([new URL(metadataUrl(resource)).pathname, WELL_KNOWN])];
}

export function metadataDocument(options: ResourceMetadataOptions): object {
  return {
    resource: options.resource,
    authorization_servers: options.authorizationServers,
    scopes_supported: options.scopesSupported,
    bearer_methods_supported: ['header'],
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
  };
}

/** A quoted-string per RFC 9110: backslash and quote escaped; control characters dropped. */
const quote = (value: string): string => {
  let out = '';
  for (const c of value) {
    const code = c.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) continue;
    out += c === '"' || c === '\\' ? `\\${c}` : c;
  }
  return `"${out}"`;
};

export interface Challenge {
  readonly error?: 'invalid_token' | 'insufficient_scope';
  readonly description?: string;
  readonly scopes?: readonly string[];
}

/** `Bearer resource_metadata="…", scope="…", error="…", error_description="…"`. */
export function bearerChallenge(resource: string, challenge: Challenge): string {
  const parts = [`resource_metadata=${quote(metadataUrl(resource))}`];
  if (challenge.scopes !== undefined && challenge.scopes.length > 0)
    parts.push(`scope=${quote(challenge.scopes.join(' '))}`);
  if (challenge.error !== undefined) parts.push(`error=${quote(challenge.error)}`);
  if (challenge.description !== undefined) parts.push(`error_description=${quote(challenge.description)}`);
  return `Bearer ${parts.join(', ')}`;
}
