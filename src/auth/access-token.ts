import type { JwtService } from '@nestjs/jwt';
import { LRUCache } from 'lru-cache';
import type { AccessTokenClaims } from './auth.service.js';

/**
 * Verifies our JWT once per request. Both the rate limiter (which counts signed-in callers by their
 * user id) and the JwtGuard need the verified claims; whichever runs first verifies, the other reuses
 * the result. A token is never trusted unverified: a forged `sub` could otherwise spend a victim's
 * request budget.
 */
const verified = new WeakMap<object, { token: string; claims: Promise<AccessTokenClaims> }>();

/**
 * Tokens whose signature, issuer, audience and lifetime this JwtService has checked, until their
 * `exp`: a client sends the same token with every request, and checking its HMAC again each time was a
 * tenth of the CPU of a read (docs/PERFORMANCE.md). Only the signature check is spared: the JwtGuard
 * asks the revocation list on every request. Bounded, so that a flood of valid tokens cannot grow it;
 * one cache per JwtService, as each may hold another secret.
 */
const checkedTokens = new WeakMap<JwtService, LRUCache<string, AccessTokenClaims>>();
const CHECKED_TOKENS_MAX = 10_000;

export function verifyAccessToken(jwt: JwtService, request: object, token: string): Promise<AccessTokenClaims> {
  const known = verified.get(request);
  if (known?.token === token) return known.claims;
  let cache = checkedTokens.get(jwt);
  if (!cache) checkedTokens.set(jwt, (cache = new LRUCache({ max: CHECKED_TOKENS_MAX })));
  const cached = cache.get(token);
  const claims = cached && unexpired(cached) ? Promise.resolve(cached) : verifyAndRemember(jwt, cache, token);
  // The guard that asked first awaits it; this keeps a rejection from counting as unhandled before then.
  claims.catch(() => undefined);
  verified.set(request, { token, claims });
  return claims;
}

/**
 * The cache's own ttl runs on the monotonic clock, jsonwebtoken's `exp` check on the wall clock; the two
 * drift apart, so a hit is checked against `exp` with the clock jsonwebtoken uses.
 */
function unexpired(claims: AccessTokenClaims): boolean {
  return typeof claims.exp === 'number' && Date.now() < claims.exp * 1000;
}

async function verifyAndRemember(jwt: JwtService, cache: LRUCache<string, AccessTokenClaims>, token: string): Promise<AccessTokenClaims> {
  const claims = await jwt.verifyAsync<AccessTokenClaims>(token);
  const lifetime = typeof claims.exp === 'number' ? claims.exp * 1000 - Date.now() : 0;
  // Until `exp` exactly: jsonwebtoken refuses a token from that second on, and so does the cache.
  if (lifetime > 0) cache.set(token, Object.freeze(claims), { ttl: lifetime });
  return claims;
}
