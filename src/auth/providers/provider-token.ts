import { type KeyObject, verify } from 'node:crypto';
import jsonwebtoken from 'jsonwebtoken';
import type { ProviderKeySet } from './provider-keys.js';

/** Asymmetric algorithms only: an HS256 token "signed" with a provider's public key is refused. */
export const PROVIDER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface ProviderTokenCheck {
  /** The provider's key set: cached, fetched again for an unknown `kid`. */
  keys: Pick<ProviderKeySet, 'keyFor'>;
  issuer?: string;
  audience?: string;
  /** Seconds of clock skew allowed on `exp` and `nbf`. */
  clockTolerance: number;
}

type Claims = jsonwebtoken.JwtPayload;

/** A provider token refused for its own sake (never the provider's failure); the message says why, after "the token". */
export class ProviderTokenRejected extends Error {}

/**
 * The claims of a provider's JWT, once its signature (by the key of the provider's set that its `kid`
 * names, with an algorithm of PROVIDER_ALGORITHMS that the key's type allows), issuer, audience, `exp`
 * (required) and `nbf` are checked. Every token is verified; only the key is reused: the key set makes
 * its KeyObjects once per fetch. jsonwebtoken,
 * which @nestjs/jwt signs and checks our own tokens with, verifies with node:crypto, synchronously;
 * jose's WebCrypto verification cost several times the CPU (docs/PERFORMANCE.md). Throws
 * ProviderTokenRejected, or the key set's errors (UnpublishedKey, or a set that cannot be had).
 */
export async function verifyProviderToken(token: string, check: ProviderTokenCheck): Promise<Claims> {
  const { alg, kid, crit, b64 } = protectedHeaderOf(token);
  if (typeof alg !== 'string' || !PROVIDER_ALGORITHMS.includes(alg))
    throw new ProviderTokenRejected('is signed with an algorithm not accepted');
  // Extensions this check does not implement must not be ignored (RFC 7515 section 4.1.11).
  if (crit !== undefined || b64 !== undefined) throw new ProviderTokenRejected('names a critical header this server does not implement');
  const published = await check.keys.keyFor(typeof kid === 'string' ? kid : undefined, alg);
  // A key the provider published for one algorithm is not used with another (RFC 7517 section 4.4).
  if (published.alg !== undefined && published.alg !== alg) throw new ProviderTokenRejected('is not valid');
  const { key } = published;
  const options = { issuer: check.issuer, audience: check.audience, clockTolerance: check.clockTolerance };
  const claims = alg === 'EdDSA' ? verifyEdDsa(token, key, options) : verifyWithJsonwebtoken(token, key, alg, options);
  // jsonwebtoken checks `exp` only when present; a provider token must expire.
  if (typeof claims.exp !== 'number') throw new ProviderTokenRejected('has a claim that is not accepted: exp');
  return claims;
}

function protectedHeaderOf(token: string): Record<string, unknown> {
  const decoded = jsonwebtoken.decode(token, { complete: true });
  if (!decoded || typeof decoded.header !== 'object') throw new ProviderTokenRejected('is not a JWT');
  return decoded.header as unknown as Record<string, unknown>;
}

interface ClaimOptions {
  issuer?: string;
  audience?: string;
  clockTolerance: number;
}

function verifyWithJsonwebtoken(token: string, key: KeyObject, alg: string, options: ClaimOptions): Claims {
  let claims: string | Claims;
  try {
    claims = jsonwebtoken.verify(token, key, { algorithms: [alg as jsonwebtoken.Algorithm], ...options });
  } catch (error) {
    throw new ProviderTokenRejected(rejectionOf(error));
  }
  if (typeof claims !== 'object' || claims === null) throw new ProviderTokenRejected('is not valid');
  return claims;
}

/**
 * EdDSA (RFC 8037), the one algorithm of the list jsonwebtoken does not verify
 * (auth0/node-jsonwebtoken#987): the signature is node:crypto's, and the claims are checked by the rules
 * jsonwebtoken applies to the others, in its order.
 */
function verifyEdDsa(token: string, key: KeyObject, { issuer, audience, clockTolerance }: ClaimOptions): Claims {
  if (key.asymmetricKeyType !== 'ed25519' && key.asymmetricKeyType !== 'ed448') throw new ProviderTokenRejected('is not valid');
  const [header, payload, signature] = token.split('.');
  if (!verify(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature ?? '', 'base64url')))
    throw new ProviderTokenRejected('is not valid');
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new ProviderTokenRejected('is not valid');
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw new ProviderTokenRejected('is not valid');
  const { nbf, exp, aud, iss } = claims as Claims;
  const now = Math.floor(Date.now() / 1000);
  if (nbf !== undefined && typeof nbf !== 'number') throw new ProviderTokenRejected('is not valid');
  if (nbf !== undefined && nbf > now + clockTolerance) throw new ProviderTokenRejected('has a claim that is not accepted: nbf');
  if (exp !== undefined && typeof exp !== 'number') throw new ProviderTokenRejected('is not valid');
  if (exp !== undefined && now >= exp + clockTolerance) throw new ProviderTokenRejected('has expired');
  if (audience !== undefined && !(Array.isArray(aud) ? aud : [aud]).includes(audience))
    throw new ProviderTokenRejected('has a claim that is not accepted: aud');
  if (issuer !== undefined && iss !== issuer) throw new ProviderTokenRejected('has a claim that is not accepted: iss');
  return claims;
}

/** jsonwebtoken's reasons, by the error's name (its classes may come from another realm under jest). */
function rejectionOf(error: unknown): string {
  const { name, message } = error as Error;
  if (name === 'TokenExpiredError') return 'has expired';
  if (name === 'NotBeforeError') return 'has a claim that is not accepted: nbf';
  if (name !== 'JsonWebTokenError') return 'is not valid';
  const claim = /^jwt (issuer|audience) invalid/.exec(message)?.[1];
  return claim ? `has a claim that is not accepted: ${claim === 'issuer' ? 'iss' : 'aud'}` : 'is not valid';
}
