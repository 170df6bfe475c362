/**
 * The one `http` source an import writes: its base URL from the document's first server (server
 * variables at their defaults; Swagger's schemes, host and basePath), overridable through
 * `<API>_BASE_URL`, and its `auth` from the security scheme the operations require, always read from
 * the environment: `<API>_TOKEN` for bearer (and OAuth 2 / OpenID Connect, whose flow mcp-run does
 * not run), `<API>_USERNAME` and `<API>_PASSWORD` for basic, `<API>_API_KEY` for an API key.
 */
import { reference } from '../manifest/literal.js';
import type { Spec } from './load.js';
import { isObj, type Obj } from './load.js';
import { type Operation, routeOf } from './operations.js';
import type { RefResolver } from './refs.js';

export interface SourceDraft {
  readonly config: Obj;
  /** Comments for the reader of the manifest. */
  readonly notes: string[];
  /** Variables the manifest reads, with what they hold. */
  readonly env: [name: string, meaning: string][];
}

export function sourceDraft(
  spec: Spec,
  ops: readonly Operation[],
  prefix: string,
  refs: RefResolver,
): SourceDraft {
  const notes: string[] = [];
  const url = serverUrl(spec, notes, prefix);
  const own = ops.filter((op) => op.ownServers).map(routeOf);
  if (own.length > 0) {
    notes.push(`${own.join(', ')} declare servers of their own; they are called at this baseUrl too.`);
  }
  const variables: [string, string][] = [[`${prefix}_BASE_URL`, `the API's address (default ${url})`]];
  const auth = securityAuth(spec, ops, prefix, refs, notes, variables);
  return {
    config: { kind: 'http', baseUrl: reference(`${prefix}_BASE_URL`, url), ...(auth && { auth }) },
    notes,
    env: variables,
  };
}

/**
 * The first server's URL with its variables at their defaults, without a trailing slash. It becomes
 * the fallback of `${env:<API>_BASE_URL:-<url>}`, where `$${` is no escape and a `}` would end the
 * reference early (and start another): so `{` and `}`, which a URL may not hold as they are
 * (RFC 3986), are percent-encoded, as a browser sends them.
 */
export function serverUrl(spec: Spec, notes: string[], prefix: string): string {
  let url: string;
  if (spec.major === 2) {
    const schemes = Array.isArray(spec.doc.schemes) ? spec.doc.schemes.map(String) : [];
    const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
    const host = typeof spec.doc.host === 'string' ? spec.doc.host : '';
    const basePath = typeof spec.doc.basePath === 'string' ? spec.doc.basePath : '';
    url = host ? `${scheme}://${host}${basePath}` : basePath || '/';
  } else {
    const servers = Array.isArray(spec.doc.servers) ? spec.doc.servers.filter(isObj) : [];
    const first = servers[0];
    url = typeof first?.url === 'string' ? first.url : '/';
    const variables = isObj(first?.variables) ? first.variables : {};
    url = url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      if (!isObj(variable)) return whole;
      const value = variable.default ?? (Array.isArray(variable.enum) ? variable.enum[0] : undefined);
      return value === undefined ? whole : String(value);
    });
  }
  url = url.replace(/[?#].*$/, '');
  if (!/^https?:\/\//i.test(url)) {
    notes.push(
      `The document gives no absolute server URL (${JSON.stringify(url)}): set ${prefix}_BASE_URL to the API's address.`,
    );
    url = `http://localhost${url.startsWith('/') ? '' : '/'}${url}`;
  }
  return url.replace(/\/+$/, '').replaceAll('{', '%7B').replaceAll('}', '%7D');
}

type Auth = Obj;

/**
 * The auth of the first supported scheme the operations require (the document's own requirement
 * first). A source carries one credential: other schemes, and a second scheme required together
 * with the first, are named in a comment.
 */
function securityAuth(
  spec: Spec,
  ops: readonly Operation[],
  prefix: string,
  refs: RefResolver,
  notes: string[],
  variables: [string, string][],
): Auth | undefined {
  const raw =
    spec.major === 2
      ? spec.doc.securityDefinitions
      : isObj(spec.doc.components)
        ? spec.doc.components.securitySchemes
        : undefined;
  const schemes = isObj(raw) ? (refs.inline(raw, spec.file) as Obj) : {};
  const required = new Map<string, string[]>(); // scheme → the schemes required together with it
  for (const requirement of [
    ...(Array.isArray(spec.doc.security) ? spec.doc.security : []),
    ...ops.flatMap((op) => op.security),
  ]) {
    if (!isObj(requirement)) continue;
    const names = Object.keys(requirement);
    for (const name of names)
      if (!required.has(name))
        required.set(
          name,
          names.filter((n) => n !== name),
        );
  }
  if (required.size === 0) {
    const defined = Object.keys(schemes);
    if (defined.length > 0)
      notes.push(
        `No operation requires a security scheme, so no auth is set (defined: ${defined.join(', ')}).`,
      );
    return undefined;
  }
  for (const [name, together] of required) {
    const scheme = schemes[name];
    const auth = isObj(scheme) ? authFor(name, scheme, prefix, notes, variables) : undefined;
    if (!auth) continue;
    if (together.length > 0)
      notes.push(`The API also wants ${together.join(', ')} with ${name}; a source sends one credential.`);
    const others = [...required.keys()].filter((n) => n !== name && !together.includes(n));
    if (others.length > 0)
      notes.push(`Other security schemes the document allows, not configured: ${others.join(', ')}.`);
    return auth;
  }
  notes.push(
    `None of the required security schemes (${[...required.keys()].join(', ')}) can be sent by an http source.`,
  );
  return undefined;
}

function authFor(
  name: string,
  scheme: Obj,
  prefix: string,
  notes: string[],
  variables: [string, string][],
): Auth | undefined {
  const type = String(scheme.type ?? '');
  const httpScheme = String(scheme.scheme ?? '').toLowerCase();
  if ((type === 'http' && httpScheme === 'bearer') || type === 'oauth2' || type === 'openIdConnect') {
    if (type !== 'http') {
      notes.push(
        `${name} is ${type === 'oauth2' ? 'OAuth 2' : 'OpenID Connect'}: mcp-run does not run the flow; put an access token in ${prefix}_TOKEN.`,
      );
    }
    variables.push([`${prefix}_TOKEN`, type === 'http' ? 'the bearer token' : 'an OAuth access token']);
    return { bearer: reference(`${prefix}_TOKEN`) };
  }
  if ((type === 'http' && httpScheme === 'basic') || type === 'basic') {
    variables.push([`${prefix}_USERNAME`, 'the user name'], [`${prefix}_PASSWORD`, 'the password']);
    return {
      basic: { username: reference(`${prefix}_USERNAME`), password: reference(`${prefix}_PASSWORD`) },
    };
  }
  if (
    type === 'apiKey' &&
    (scheme.in === 'header' || scheme.in === 'query') &&
    typeof scheme.name === 'string'
  ) {
    variables.push([
      `${prefix}_API_KEY`,
      `the API key (sent as the ${scheme.name} ${scheme.in === 'header' ? 'header' : 'query parameter'})`,
    ]);
    return { apiKey: { [scheme.in]: scheme.name, value: reference(`${prefix}_API_KEY`) } };
  }
  notes.push(
    `Security scheme ${name} (${type}${httpScheme ? ` ${httpScheme}` : ''}${scheme.in ? ` in ${scheme.in}` : ''}) cannot be sent by an http source.`,
  );
  return undefined;
}
