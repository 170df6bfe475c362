/**
 * A real, certified OpenID provider (oidc-provider) on 127.0.0.1 for the OAuth end-to-end tests:
 * dynamic client registration, PKCE, resource indicators (RFC 8707) issuing JWT access tokens for
 * one MCP resource, and introspection. The login and consent "user" is scripted: an interaction
 * logs in `alice` and grants the scopes the client asked for, so `authorize` can follow the
 * browser's redirects with a cookie jar and hand back the authorization code. `token` runs the whole
 * authorization-code flow with PKCE for a pre-registered public client and hands back the access
 * token the provider issued, for tests that need a real token without an SDK client.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Issuer {
  readonly url: string;
  /**
   * Drives an authorization URL like a browser where `account` (default alice) logs in and
   * consents; returns the redirect's query.
   */
  authorize(url: URL, redirectUri: string, account?: string): Promise<URLSearchParams>;
  /** An access token for `account`, through the authorization-code flow of a pre-registered client. */
  token(clientId: string, account: string, scope: string, resource?: string): Promise<string>;
  close(): Promise<void>;
}

export interface IssuerOptions {
  /** The MCP server's resource identifier; tokens for it are JWTs with these scopes. */
  readonly resource: () => string;
  /** More resource identifiers of the MCP server (its toolsets' endpoints), with the same scopes. */
  readonly moreResources?: () => readonly string[];
  readonly scopes: readonly string[];
  /** Pre-registered public clients: id → redirect URI. */
  readonly clients?: Readonly<Record<string, string>>;
  /** Access tokens as JWTs (default) or opaque (then only introspection can check them). */
  readonly accessTokenFormat?: 'jwt' | 'opaque';
  /** A confidential client the resource server introspects as: id and secret. */
  readonly introspector?: { readonly id: string; readonly secret: string };
  /** Claims added to each access token of an account (oidc-provider's extraTokenClaims). */
  readonly claims?: (accountId: string) => Record<string, unknown>;
  /** The port to listen on; default one the OS picks. */
  readonly port?: number;
  /**
   * A confidential client with the client_credentials grant, for an upstream API (another resource
   * server) whose identifier is `resource` and whose scopes are `scopes`.
   */
  readonly service?: {
    readonly id: string;
    readonly secret: string;
    readonly resource: () => string;
    readonly scopes: readonly string[];
  };
}

export async function startIssuer(options: IssuerOptions): Promise<Issuer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let account = 'alice';
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(url, {
    clients: Object.entries(options.clients ?? {})
      .map(([id, redirect]) => ({
        client_id: id,
        redirect_uris: [redirect],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        scope: ['openid', 'offline_access', ...options.scopes].join(' '),
      }))
      .concat(
        options.service === undefined
          ? []
          : [
              {
                client_id: options.service.id,
                client_secret: options.service.secret,
                redirect_uris: [],
                response_types: [],
                grant_types: ['client_credentials'],
                token_endpoint_auth_method: 'client_secret_basic',
                scope: options.service.scopes.join(' '),
              } as never,
            ],
      )
      .concat(
        options.introspector === undefined
          ? []
          : [
              {
                client_id: options.introspector.id,
                client_secret: options.introspector.secret,
                redirect_uris: [],
                response_types: [],
                grant_types: [],
                token_endpoint_auth_method: 'client_secret_basic',
              } as never,
            ],
      ),
    jwks: { keys: [{ ...signing, kid: 'test-rs256', alg: 'RS256', use: 'sig' }] },
    // The MCP scopes are listed too: registration accepts only listed scopes in a client's metadata.
    scopes: ['openid', 'offline_access', ...options.scopes, ...(options.service?.scopes ?? [])],
    clientDefaults: {
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      introspection: { enabled: true },
      clientCredentials: { enabled: options.service !== undefined },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (options.service !== undefined && indicator === options.service.resource()) {
            return {
              scope: options.service.scopes.join(' '),
              audience: indicator,
              accessTokenTTL: 300,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'RS256' } },
            };
          }
          if (indicator !== options.resource() && !(options.moreResources?.() ?? []).includes(indicator))
            throw new Error(`unknown resource ${indicator}`);
          return {
            scope: options.scopes.join(' '),
            audience: indicator,
            accessTokenTTL: 300,
            ...(options.accessTokenFormat === 'opaque'
              ? { accessTokenFormat: 'opaque' }
              : { accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
          };
        },
      },
    },
    pkce: { required: () => true },
    ...(options.claims === undefined
      ? {}
      : {
          extraTokenClaims: (_ctx: unknown, token: { accountId?: string }) =>
            token.accountId === undefined ? {} : options.claims?.(token.accountId),
        }),
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    clientBasedCORS: () => true,
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) {
      handle(req, res);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: account } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const clientId = String(details.params.client_id);
      const grant = new provider.Grant({ accountId: details.session?.accountId ?? account, clientId });
      const scope = String(details.params.scope ?? '');
      grant.addOIDCScope(scope);
      for (const resource of [options.resource(), ...(options.moreResources?.() ?? [])])
        grant.addResourceScope(resource, scope);
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });

  async function authorize(start: URL, redirectUri: string, who = 'alice'): Promise<URLSearchParams> {
    account = who;
    const jar = new Map<string, string>();
    let next = start.href;
    for (let hop = 0; hop < 20; hop++) {
      if (next.startsWith(redirectUri)) return new URL(next).searchParams;
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(next, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
      for (const set of res.headers.getSetCookie()) {
        const [pair = ''] = set.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (location === null) throw new Error(`authorization stopped at ${res.status}: ${await res.text()}`);
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects');
  }

  async function token(
    clientId: string,
    who: string,
    scope: string,
    resource = options.resource(),
  ): Promise<string> {
    const redirectUri = options.clients?.[clientId];
    if (redirectUri === undefined) throw new Error(`no pre-registered client ${clientId}`);
    const verifier = randomBytes(32).toString('base64url');
    const start = new URL('/auth', url);
    start.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope,
      resource,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const code = (await authorize(start, redirectUri, who)).get('code');
    if (code === null) throw new Error('the provider sent no authorization code');
    const res = await fetch(new URL('/token', url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource,
      }).toString(),
    });
    const body = (await res.json()) as { access_token?: string };
    if (res.status !== 200 || body.access_token === undefined)
      throw new Error(`the token endpoint answered ${res.status}: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  return {
    url,
    authorize,
    token,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
