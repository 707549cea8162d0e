import { exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK, SignJWT } from 'jose';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createFileOnce } from '../common/create-file-once.js';

/**
 * The built-in development identity provider for idp1 (docs/CONTRACT.md section 5): an RSA key pair kept
 * in the data directory, so that `npm start` on a fresh clone can be signed into at once with
 * `npm run dev-token -- <subject>`. It is never used when NODE_ENV=production or IDP1_JWKS_URL is set.
 */
export const DEV_IDP_ISSUER = 'urn:game-backend:dev-idp';
const ALGORITHM = 'RS256';

export interface DevIdentityProvider {
  issuer: string;
  /** The public key, as the JWKS a real provider would publish. */
  jwks: JSONWebKeySet;
  /** A provider token for `subject`, as a real idp1 would issue it. */
  issueToken(subject: string, claims?: { name?: string; email?: string }, lifetimeSeconds?: number): Promise<string>;
}

export async function loadDevIdentityProvider(dataDir: string): Promise<DevIdentityProvider> {
  const privateJwk = await loadOrCreateKey(join(dataDir, 'dev-idp'));
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
  const privateKey = await importJWK(privateJwk, ALGORITHM);
  return {
    issuer: DEV_IDP_ISSUER,
    jwks: { keys: [publicJwk] },
    issueToken: (subject, claims = {}, lifetimeSeconds = 3600) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg: ALGORITHM, kid: privateJwk.kid })
        .setIssuer(DEV_IDP_ISSUER)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(`${lifetimeSeconds}s`)
        .sign(privateKey),
  };
}

async function loadOrCreateKey(folder: string): Promise<JWK> {
  // The service and the dev-token script may race to create the key: both get the one kept.
  const text = await createFileOnce(join(folder, 'private-key.json'), async () => {
    const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true, modulusLength: 2048 });
    const jwk = await exportJWK(privateKey);
    jwk.kid = createHash('sha256').update(String(jwk.n)).digest('base64url').slice(0, 16);
    jwk.alg = ALGORITHM;
    jwk.use = 'sig';
    return JSON.stringify(jwk);
  });
  return JSON.parse(text) as JWK;
}
