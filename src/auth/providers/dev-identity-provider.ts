import { createHash, createPrivateKey, generateKeyPair, type webcrypto } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jsonwebtoken from 'jsonwebtoken';
import { createFileOnce } from '../../common/create-file-once.js';

/**
 * The built-in development identity provider for idp1 (docs/CONTRACT.md section 5): an RSA key pair kept
 * in the data directory, so that `npm start` on a fresh clone can be signed into at once with
 * `npm run dev-token -- <subject>`. It is never used when NODE_ENV=production or IDP1_JWKS_URL is set.
 */
export const DEV_IDP_ISSUER = 'urn:game-backend:dev-idp';
const ALGORITHM = 'RS256';

/** A JSON Web Key as a key set publishes it, named by its `kid`. */
export type Jwk = webcrypto.JsonWebKey & { kid?: string };

export interface DevIdentityProvider {
  issuer: string;
  /** The public key, as the JWKS a real provider would publish. */
  jwks: { keys: Jwk[] };
  /** A provider token for `subject`, as a real idp1 would issue it. */
  issueToken(subject: string, claims?: { name?: string; email?: string }, lifetimeSeconds?: number): Promise<string>;
}

export async function loadDevIdentityProvider(dataDir: string): Promise<DevIdentityProvider> {
  const privateJwk = await loadOrCreateKey(join(dataDir, 'dev-idp'));
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
  const privateKey = createPrivateKey({ key: privateJwk, format: 'jwk' });
  return {
    issuer: DEV_IDP_ISSUER,
    jwks: { keys: [publicJwk] },
    issueToken: (subject, claims = {}, lifetimeSeconds = 3600) =>
      Promise.resolve(
        jsonwebtoken.sign({ ...claims }, privateKey, {
          algorithm: ALGORITHM,
          keyid: String(privateJwk.kid),
          issuer: DEV_IDP_ISSUER,
          subject,
          expiresIn: lifetimeSeconds,
        }),
      ),
  };
}

async function loadOrCreateKey(folder: string): Promise<Jwk> {
  // The service and the dev-token script may race to create the key: both get the one kept.
  const text = await createFileOnce(join(folder, 'private-key.json'), async () => {
    const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
    const jwk: Jwk = privateKey.export({ format: 'jwk' });
    jwk.kid = createHash('sha256').update(String(jwk.n)).digest('base64url').slice(0, 16);
    jwk.alg = ALGORITHM;
    jwk.use = 'sig';
    return JSON.stringify(jwk);
  });
  return JSON.parse(text) as Jwk;
}
