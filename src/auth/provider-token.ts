import { KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import jsonwebtoken from 'jsonwebtoken';

/** Asymmetric algorithms only: an HS256 token "signed" with a provider's public key is refused. */
export const PROVIDER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Those jsonwebtoken verifies (all but EdDSA, which jose keeps). */
const NODE_ALGORITHMS = new Set(PROVIDER_ALGORITHMS.filter((alg) => alg !== 'EdDSA'));

export interface ProviderTokenCheck {
  /** The provider's key set: jose's, cached, fetched again for an unknown `kid`. */
  keys: JWTVerifyGetKey;
  issuer?: string;
  audience?: string;
  /** Seconds of clock skew allowed on `exp` and `nbf`. */
  clockTolerance: number;
}

/** A provider token refused for its own sake (never the provider's failure); the message says why, after "the token". */
export class ProviderTokenRejected extends Error {}

/**
 * The claims of a provider's JWT, once its signature (by a key of the provider's set, with an algorithm
 * of PROVIDER_ALGORITHMS that the key's type allows), issuer, audience, `exp` (required) and `nbf` are
 * checked. Every token is verified; only the key is reused: jose's key set hands out the same CryptoKey
 * for a key until the set changes, and its KeyObject is made once. The signature is checked with
 * node:crypto, synchronously (through jsonwebtoken), where jose's WebCrypto verification cost five times
 * the CPU (docs/PERFORMANCE.md). Throws ProviderTokenRejected, or jose's errors of the key set (an
 * unknown key, or a set that cannot be had).
 */
export async function verifyProviderToken(token: string, check: ProviderTokenCheck): Promise<JWTPayload> {
  const header = protectedHeaderOf(token);
  const { alg } = header;
  if (typeof alg !== 'string' || !PROVIDER_ALGORITHMS.includes(alg))
    throw new ProviderTokenRejected('is signed with an algorithm not accepted');
  // Extensions this check does not implement must not be ignored (RFC 7515 section 4.1.11).
  if (header.crit !== undefined || header.b64 !== undefined)
    throw new ProviderTokenRejected('names a critical header this server does not implement');
  const options = { issuer: check.issuer, audience: check.audience, clockTolerance: check.clockTolerance };
  if (!NODE_ALGORITHMS.has(alg)) return verifyWithJose(token, check.keys, alg, options);
  const [protectedPart, payload, signature] = token.split('.');
  const key = keyObjectOf(await check.keys({ ...header, alg }, { protected: protectedPart, payload, signature }));
  let claims: string | jsonwebtoken.JwtPayload;
  try {
    claims = jsonwebtoken.verify(token, key, { algorithms: [alg as jsonwebtoken.Algorithm], ...options });
  } catch (error) {
    throw new ProviderTokenRejected(rejectionOf(error));
  }
  if (typeof claims !== 'object' || claims === null) throw new ProviderTokenRejected('is not valid');
  // jsonwebtoken checks `exp` only when present; a provider token must expire.
  if (typeof claims.exp !== 'number') throw new ProviderTokenRejected('has a claim that is not accepted: exp');
  return claims;
}

function protectedHeaderOf(token: string): ReturnType<typeof decodeProtectedHeader> {
  try {
    return decodeProtectedHeader(token);
  } catch {
    throw new ProviderTokenRejected('is not a JWT');
  }
}

async function verifyWithJose(
  token: string,
  keys: JWTVerifyGetKey,
  algorithm: string,
  options: { issuer?: string; audience?: string; clockTolerance: number },
): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, keys, { ...options, algorithms: [algorithm], requiredClaims: ['exp'] });
    return payload;
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new ProviderTokenRejected('has expired');
    if (error instanceof errors.JWTClaimValidationFailed)
      throw new ProviderTokenRejected(`has a claim that is not accepted: ${error.claim}`);
    if (
      error instanceof errors.JWSSignatureVerificationFailed ||
      error instanceof errors.JWTInvalid ||
      error instanceof errors.JWSInvalid
    ) {
      throw new ProviderTokenRejected('is not valid');
    }
    throw error;
  }
}

/** One KeyObject per CryptoKey the key set hands out; a key dropped from the set is collected with it. */
const keyObjects = new WeakMap<object, KeyObject>();

function keyObjectOf(key: unknown): KeyObject {
  if (key instanceof KeyObject) return key;
  let keyObject = keyObjects.get(key as object);
  if (!keyObject) keyObjects.set(key as object, (keyObject = KeyObject.from(key as CryptoKey)));
  return keyObject;
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
