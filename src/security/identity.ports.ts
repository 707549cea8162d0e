import type { Caller } from '../common/auth.decorators.js';
import type { Revocation } from './revocation.js';

/**
 * What infrastructure asks of our access tokens: the rate limiter counts a signed-in caller's requests
 * by user, the socket authenticates its upgrade and asks about revocation after its rate limits.
 * AuthModule provides it (AccessTokens, through AuthPortsModule), so that security/ and realtime/
 * depend on this contract and on no feature.
 */
export abstract class TokenVerifier {
  /** The caller an `Authorization` header's valid token names; 401 otherwise. Revocation is not asked. */
  abstract callerOf(request: object, header: string | undefined): Promise<Caller>;
  /** Whether a token of the user's session, issued then, no longer counts. */
  abstract isRevoked(userUid: string, sessionUid: string, issuedAt: Date): boolean | Promise<boolean>;
  /** The user a valid token names; undefined for no token or a bad one. */
  abstract userUidOf(request: object, header: string | undefined): Promise<string | undefined>;
}

/** Sign-outs, revocations and bans as they happen on any instance (AuthModule's RevocationList). */
export abstract class RevocationFeed {
  abstract onRevoked(listener: (revocation: Revocation) => void): void;
}
