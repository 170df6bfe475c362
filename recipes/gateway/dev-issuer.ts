/**
 * A local authorization server for trying the gateway recipe from a checkout of mcp-run: oidc-provider
 * (a certified OpenID provider, a dev dependency) on http://127.0.0.1:4444, issuing JWT access tokens
 * with the `gateway` scope for the resource http://127.0.0.1:3000/mcp. It prints a token for alice,
 * then keeps running (Ctrl-C stops it). For development only: logins are scripted.
 *
 *   npx tsx recipes/gateway/dev-issuer.ts
 */
import { startIssuer } from '../../test/e2e/oidc-issuer.js';

const RESOURCE = process.env.MCP_RESOURCE ?? 'http://127.0.0.1:3000/mcp';
const REDIRECT = 'http://127.0.0.1:7/callback';

const issuer = await startIssuer({
  port: Number(process.env.ISSUER_PORT ?? 4444),
  resource: () => RESOURCE,
  scopes: ['gateway'],
  clients: { 'gateway-demo': REDIRECT },
  claims: (account) => ({ email: `${account}@example.test` }),
});
console.log(`issuer ${issuer.url}, a token for ${RESOURCE}:`);
console.log(`\nTOKEN=${await issuer.token('gateway-demo', 'alice', 'gateway')}`);
console.log('\nany MCP client with OAuth support can also register itself and log in (as alice).');
