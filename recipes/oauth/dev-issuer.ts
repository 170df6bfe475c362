/**
 * A local authorization server for trying the oauth recipe from a checkout of mcp-run: oidc-provider
 * (a certified OpenID provider, a dev dependency) on http://127.0.0.1:4444, issuing JWT access tokens
 * for the resource http://127.0.0.1:3000/mcp with an `email` claim. It prints a token for alice and
 * one for bob, then keeps running (Ctrl-C stops it). For development only: logins are scripted.
 *
 *   npx tsx recipes/oauth/dev-issuer.ts
 */
import { startIssuer } from '../../test/e2e/oidc-issuer.js';

const RESOURCE = process.env.MCP_RESOURCE ?? 'http://127.0.0.1:3000/mcp';
const REDIRECT = 'http://127.0.0.1:7/callback';

const issuer = await startIssuer({
  port: Number(process.env.ISSUER_PORT ?? 4444),
  resource: () => RESOURCE,
  scopes: ['notes.read', 'notes.stats'],
  clients: { 'notes-demo': REDIRECT },
  claims: (account) => ({ email: `${account}@example.test` }),
});
console.log(`issuer ${issuer.url}, tokens for ${RESOURCE}:`);
for (const user of ['alice', 'bob']) {
  const token = await issuer.token('notes-demo', user, 'notes.read notes.stats');
  console.log(`\n${user.toUpperCase()}_TOKEN=${token}`);
}
console.log('\nany MCP client with OAuth support can also register itself and log in (as alice).');
