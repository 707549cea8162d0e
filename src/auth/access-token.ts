import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { LRUCache } from 'lru-cache';
import type { Caller } from '../common/auth.decorators.js';
import { unauthorized } from '../common/errors.js';
import { ADMIN_ROLE, type AccessTokenClaims } from './auth.service.js';
import { readAuthorizationToken } from './authorization-header.js';
import { RevocationList } from './sign-in-sessions/revocation-list.js';
import type { TokenVerifier } from '../security/identity.ports.js';

/**
 * Our access token, checked one way wherever it arrives: REST requests (JwtGuard), the rate limiter
 * that counts them per user (RateLimitGuard) and upgrades to /realtime (RealtimeAuth).
 */
@Injectable()
export class AccessTokens implements TokenVerifier {
  constructor(
    private readonly jwt: JwtService,
    private readonly revocations: RevocationList,
  ) {}

  /**
   * The caller whose token an `Authorization` header carries, once its signature, issuer, audience,
   * expiry and claims are checked; 401 otherwise. Whether its session still counts is `isRevoked`'s
   * question, asked by `authenticate` at once and by the socket after its rate limits.
   */
  async callerOf(request: object, header: string | undefined): Promise<Caller> {
    const token = readAuthorizationToken(header);
    if (!token) throw unauthorized('the Authorization header must be "jwt <token>" or "Bearer <token>"');
    let claims: AccessTokenClaims;
    try {
      claims = await verifyAccessToken(this.jwt, request, token);
    } catch {
      throw unauthorized('the token is invalid or has expired: sign in again');
    }
    return callerOf(claims);
  }

  /** The caller, as `callerOf` reads it, whose session was neither signed out nor revoked; 401 otherwise. */
  async authenticate(request: object, header: string | undefined): Promise<Caller> {
    const caller = await this.callerOf(request, header);
    const revoked = this.isRevoked(caller.uid, caller.sessionUid, caller.tokenIssuedAt);
    if (revoked === true || (revoked !== false && (await revoked)))
      throw unauthorized('the session was signed out or revoked: sign in again');
    return caller;
  }

  /** Whether a token of the user's session, issued then, no longer counts (RevocationList). */
  isRevoked(userUid: string, sessionUid: string, issuedAt: Date): boolean | Promise<boolean> {
    return this.revocations.isRevoked(userUid, sessionUid, issuedAt);
  }

  /** The user a valid token names, for counting their requests; undefined for no token or a bad one. */
  async userUidOf(request: object, header: string | undefined): Promise<string | undefined> {
    const token = readAuthorizationToken(header);
    if (!token) return undefined;
    try {
      const { sub } = await verifyAccessToken(this.jwt, request, token);
      return typeof sub === 'string' ? sub : undefined;
    } catch {
      return undefined;
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The caller a verified token names. A token without a session (`sid`) predates player sessions: it
 * could not be revoked, so it is refused (docs/SECURITY.md, upgrading).
 */
function callerOf(claims: AccessTokenClaims): Caller {
  const { sub, roles, sid, iat, exp } = claims;
  if (typeof sub !== 'string' || !Array.isArray(roles) || typeof iat !== 'number' || typeof exp !== 'number') {
    throw unauthorized('the token is not one of ours');
  }
  if (sid === undefined) throw unauthorized('the token predates player sessions: sign in again');
  if (typeof sid !== 'string' || !UUID.test(sid)) throw unauthorized('the token is not one of ours');
  return {
    uid: sub,
    roles,
    isAdmin: roles.includes(ADMIN_ROLE),
    sessionUid: sid,
    tokenIssuedAt: new Date(iat * 1000),
    tokenExpiresAt: new Date(exp * 1000),
  };
}

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
