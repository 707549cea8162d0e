/**
 * Prints an idp1 token from the built-in development identity provider, for trying the service:
 *
 *   npm run dev-token -- alice          # a player
 *   npm run dev-token -- admin          # an admin (ADMIN_USERS defaults to idp1:admin outside production)
 *
 * Exchange it for our JWT with `curl -H "Authorization: jwt <token>" localhost:3000/auth/idp1`.
 * It reads the key pair from DATA_DIR (default .data/), the folder the service uses.
 */
import { loadDevIdentityProvider } from '../src/auth/providers/dev-identity-provider.js';
import { loadConfig } from '../src/config/environment.js';

const environment = loadConfig();
const subject = process.argv[2];
if (!subject) {
  console.error('usage: npm run dev-token -- <subject> [name]');
  process.exit(2);
}
if (environment.isProduction || environment.idp1.jwksUrl) {
  console.error('the development identity provider is off: NODE_ENV=production or IDP1_JWKS_URL is set');
  process.exit(1);
}
const provider = await loadDevIdentityProvider(environment.dataDir);
console.log(await provider.issueToken(subject, { name: process.argv[3] ?? subject }));
