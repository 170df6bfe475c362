/**
 * Who a verified access token names: one principal, one caller. The caller is the token's subject
 * (`sub`); a token without one is taken as a client-credentials token its client holds for itself,
 * named by `client_id` (RFC 9068 §2.2, RFC 7662). `azp` and vendor claims (Okta's `cid`) are not
 * used: they name the application a token was issued to, which many users share, so a sub-less token
 * carrying only them could not tell its users apart. A token with neither is refused (401), and so is
 * a `sub` (or, without one, a `client_id`) that is there but not a non-empty string, so a malformed
 * subject never falls back to a client that others share.
 *
 * The caller's label keys its sessions, its tasks and its shares (sessions.ts, connection.ts), so it
 * is injective: `oauth:<issuer>#sub:<sub>` or `oauth:<issuer>#client:<client_id>`, where the issuer
 * has `%` and `#` escaped (the first `#` ends it), the kind ends at the next `:`, and the value is the
 * rest, whatever it holds. A subject "client:abc" is `…#sub:client:abc`, never the client "abc".
 */
import type { JWTPayload } from 'jose';
import type { CallerIdentity } from '../../../catalog/types.js';

export interface Principal {
  /** Names the caller: its sessions, tasks and per-client shares are keyed on it; never a secret. */
  readonly label: string;
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  /** The granted scopes; undefined for a static credential, which carries every right. */
  readonly scopes: ReadonlySet<string> | undefined;
  /** The verified token's claims, for claim-bound inputs and token exchange; none for a static credential. */
  readonly identity?: CallerIdentity;
}

const NO_PRINCIPAL =
  'the access token names no principal: it has neither a "sub" nor a "client_id" claim; ask the authorization server to include the subject';

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * Why a claims set names no principal (the 401's description), or undefined when it names one. The
 * verifier also asks it before the keys are fetched, so such a token gets 401 even in an outage.
 */
export function principalFault(claims: JWTPayload): string | undefined {
  if (claims.sub !== undefined)
    return nonEmpty(claims.sub) ? undefined : 'the access token\'s "sub" claim is not a non-empty string';
  if (claims.client_id === undefined) return NO_PRINCIPAL;
  return nonEmpty(claims.client_id)
    ? undefined
    : 'the access token\'s "client_id" claim is not a non-empty string';
}

/** The principal of a verified token's claims, or why they name none (principalFault). */
export function principalOf(claims: JWTPayload, issuer: string, token: string): Principal | string {
  const fault = principalFault(claims);
  if (fault !== undefined) return fault;
  const subject = nonEmpty(claims.sub) ? claims.sub : undefined;
  const clientId = nonEmpty(claims.client_id) ? claims.client_id : undefined;
  const from = `oauth:${issuer.replaceAll('%', '%25').replaceAll('#', '%23')}#`;
  // principalFault let through only a claims set with a subject, or else a client id.
  const label = subject !== undefined ? `${from}sub:${subject}` : `${from}client:${clientId}`;
  const scopes = new Set<string>();
  if (typeof claims.scope === 'string') for (const s of claims.scope.split(' ')) if (s !== '') scopes.add(s);
  if (Array.isArray(claims.scp)) for (const s of claims.scp) if (typeof s === 'string') scopes.add(s);
  const identity: CallerIdentity = {
    issuer,
    subject,
    claims: Object.freeze({ ...claims }),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    accessToken: () => token,
  };
  return { label, subject, clientId, scopes, identity };
}
