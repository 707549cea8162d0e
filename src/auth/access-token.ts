import type { JwtService } from '@nestjs/jwt';
import type { AccessTokenClaims } from './auth.service.js';

/**
 * Verifies our JWT once per request. Both the rate limiter (which counts signed-in callers by their
 * user id) and the JwtGuard need the verified claims; whichever runs first verifies, the other reuses
 * the result. A token is never trusted unverified: a forged `sub` could otherwise spend a victim's
 * request budget.
 */
const verified = new WeakMap<object, { token: string; claims: Promise<AccessTokenClaims> }>();

export function verifyAccessToken(jwt: JwtService, request: object, token: string): Promise<AccessTokenClaims> {
  const known = verified.get(request);
  if (known?.token === token) return known.claims;
  const claims = jwt.verifyAsync<AccessTokenClaims>(token);
  // The guard that asked first awaits it; this keeps a rejection from counting as unhandled before then.
  claims.catch(() => undefined);
  verified.set(request, { token, claims });
  return claims;
}
