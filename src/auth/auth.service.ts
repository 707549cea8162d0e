import { randomUUID } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { normalizeIp } from '@nestjs/throttler';
import { ApiException, conflict, ErrorCode, unauthorized } from '../common/errors.js';
import { hashSecretToken, SECRET_TOKEN_PATTERN } from '../common/secret-token.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { AuditEvent, AuthAuditRepository } from './auth-audit.repository.js';
import type { TokenDto } from './dto/token.dto.js';
import type { VerifiedIdentity } from './users/identity.js';
import { DeviceIds } from './users/device-ids.js';
import { IdentitiesRepository } from './users/identities.repository.js';
import {
  type ClientInfo,
  type SignInSessionRow,
  SignInSessionsRepository,
  type SignInRequest,
} from './sign-in-sessions/sign-in-sessions.repository.js';
import { refreshVerdict } from './sign-in-sessions/refresh.rules.js';
import type { Revocation } from '../security/revocation.js';
import { RevocationList } from './sign-in-sessions/revocation-list.js';

export const ADMIN_ROLE = 'admin';
export const USER_ROLE = 'user';

/** The claims of the JWTs this service issues, besides iss and aud. */
export interface AccessTokenClaims {
  sub: string;
  roles: string[];
  /** The player session the token belongs to: revoking it withdraws the token. */
  sid: string;
  /** Set by the JWT library when it signs (seconds since the epoch). */
  iat?: number;
  exp?: number;
}

/** A banned user's refusal: 403 BANNED, with when the ban ends. */
export const banned = (until: Date | null) =>
  new ApiException(HttpStatus.FORBIDDEN, ErrorCode.BANNED, until ? `banned until ${until.toISOString()}` : 'banned', {
    until: until?.toISOString() ?? null,
  });

/**
 * Signing in and staying signed in: a verified identity (a device id, or an identity provider's
 * token) opens a player session, and the session's single-use refresh tokens renew its access tokens
 * (SECURITY.md).
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly identities: IdentitiesRepository,
    private readonly deviceIds: DeviceIds,
    private readonly sessions: SignInSessionsRepository,
    private readonly audit: AuthAuditRepository,
    private readonly revocations: RevocationList,
    private readonly jwt: JwtService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /**
   * Exchanges a verified identity for our tokens, opening a player session. An identity nobody has
   * yet creates its account (the user and a default persona) unless `create` is false: then 404
   * NO_SUCH_ACCOUNT, and the lookup was all the database did. A banned user is refused (and the
   * attempt audited). A device no account has makes a guest account only while its address has made
   * fewer than GUEST_ACCOUNTS_PER_ADDRESS in the window: else 429 GUEST_ACCOUNT_LIMIT. The sign-in is
   * one statement (SignInSessionsRepository.signIn).
   */
  async signIn(identity: VerifiedIdentity, client: ClientInfo, create = true): Promise<TokenDto> {
    // The sign-in statement writes (even when it finds nothing to write, it takes the locks a write
    // takes): an identity that must not create its account is looked up first, read-only.
    if (!create && (await this.identities.ownerOf(identity)) === undefined) throw noSuchAccount(identity.provider);
    const request: SignInRequest = {
      identity,
      create,
      newAccount: { userUid: randomUUID(), personaName: defaultPersonaName(identity) },
      ...client,
      ttlSeconds: this.refreshTtl,
      guests: {
        // An IPv6 address counts by its /64, which one host usually owns, as the rate limits count it.
        address: client.address === null ? null : normalizeIp(client.address, 64),
        limit: this.config.guestAccounts.perAddress,
        windowSeconds: this.config.guestAccounts.windowSeconds,
      },
    };
    let outcome = await this.sessions.signIn(request);
    // Of first sign-ins racing each other, one registers the account; the others sign in to it (a guest
    // refused may be a device whose account such a race just registered: it is looked for once more).
    for (let attempt = 1; (outcome.kind === 'unknown' || outcome.kind === 'guest-limit') && create && attempt < 3; attempt++) {
      outcome = await this.sessions.signIn(request);
    }
    switch (outcome.kind) {
      case 'unknown':
        throw noSuchAccount(identity.provider);
      case 'guest-limit':
        throw guestAccountLimit(this.config.guestAccounts.perAddress, outcome.retryAfterSeconds);
      case 'banned':
        throw banned(outcome.bannedUntil);
      case 'opened':
        if (outcome.evicted.length > 0) {
          this.revocations.apply({ userUid: outcome.userUid, sessionUids: outcome.evicted, reason: 'session-limit' });
        }
        return this.tokens(identity, outcome.session, outcome.refreshToken);
    }
  }

  /** Signs a guest in with the device id the game keeps (the first sign-in creates the account, unless `create` is false). */
  signInWithDevice(deviceId: string, create: boolean, client: ClientInfo): Promise<TokenDto> {
    return this.signIn(this.deviceIds.identityOf(deviceId), client, create);
  }

  /** Trades a refresh token for the session's next pair (refreshVerdict decides, in refresh.rules.ts). */
  async refresh(refreshToken: string, client: ClientInfo): Promise<TokenDto> {
    // A token of another shape was never issued: refused without a lookup.
    if (!SECRET_TOKEN_PATTERN.test(refreshToken)) throw unknownRefreshToken();
    const hash = hashSecretToken(refreshToken);
    const outcome = await this.revocations.transaction(async (transaction) => {
      const presented = await this.sessions.lockByRefreshToken(transaction, hash, this.config.sessions.reuseGraceMs);
      if (!presented) return { verdict: 'unknown' as const };
      const { session } = presented;
      const verdict = refreshVerdict({ ...presented, revoked: session.revokedAt !== null });
      const entry = { userUid: session.userUid, sessionUid: session.uid, ...client };
      if (verdict === 'rotate') {
        const rotated = await this.sessions.rotate(transaction, session.uid, hash, this.refreshTtl);
        await this.audit.record({ ...entry, event: AuditEvent.REFRESH, outcome: 'success' }, transaction);
        return { verdict, presented, rotated };
      }
      if (verdict === 'replay') {
        await this.sessions.revoke(transaction, session.uid, 'replay');
        await this.audit.record(
          { ...entry, event: AuditEvent.REPLAY, outcome: 'refused', detail: { action: 'session revoked' } },
          transaction,
        );
        const revocation: Revocation = { userUid: session.userUid, sessionUids: [session.uid], reason: 'replay' };
        return { verdict, presented, revocation };
      }
      await this.audit.record({ ...entry, event: AuditEvent.REFRESH, outcome: 'refused', detail: { reason: verdict } }, transaction);
      return { verdict, presented };
    });
    switch (outcome.verdict) {
      case 'rotate':
        return this.tokens(outcome.presented, outcome.rotated.session, outcome.rotated.refreshToken);
      case 'banned':
        throw banned(outcome.presented.bannedUntil);
      case 'concurrent':
        throw conflict(
          ErrorCode.REFRESH_CONFLICT,
          'this refresh token was just used by another request: use the tokens that request received (nothing was revoked)',
        );
      case 'replay':
        throw unauthorized('this refresh token was already used: the session is signed out for safety; sign in again');
      case 'revoked':
        throw unauthorized('the session was signed out or revoked: sign in again');
      case 'expired':
        throw unauthorized('the session has expired: sign in again');
      default:
        throw unknownRefreshToken();
    }
  }

  /**
   * A new access token for the session, with the refresh token that renews it. The roles are those of
   * the identity that opened the session (a device is never an admin: ADMIN_USERS names provider
   * identities), decided afresh at every refresh: removing someone from ADMIN_USERS takes effect then.
   */
  private tokens(who: { provider: string | null; subject: string | null }, session: SignInSessionRow, refreshToken: string): TokenDto {
    const admin = who.provider !== null && this.config.adminUsers.includes(`${who.provider}:${who.subject}`);
    const roles = admin ? [USER_ROLE, ADMIN_ROLE] : [USER_ROLE];
    const claims: AccessTokenClaims = { sub: session.userUid, roles, sid: session.uid };
    // Signed synchronously: given a callback, jsonwebtoken signs through jws's stream API and its ticks,
    // a third more CPU for the same token (docs/PERFORMANCE.md).
    return { token: this.jwt.sign(claims), refreshToken, expiresIn: this.config.jwt.ttlSeconds };
  }

  private get refreshTtl(): number {
    return this.config.sessions.refreshTtlSeconds;
  }
}

/** The first persona's name: the provider's name for the person, else their subject; "Guest" on a device. */
function defaultPersonaName(identity: VerifiedIdentity): string {
  if (identity.provider === 'device') return GUEST_PERSONA_NAME;
  return (identity.name ?? identity.subject).slice(0, 100);
}

export const GUEST_PERSONA_NAME = 'Guest';

const noSuchAccount = (provider: string) =>
  new ApiException(
    HttpStatus.NOT_FOUND,
    ErrorCode.NO_SUCH_ACCOUNT,
    provider === 'device'
      ? 'no account has this device id (send create: true, or leave it out, to make one)'
      : `no account has this ${provider} identity`,
  );

const guestAccountLimit = (limit: number, retryAfterSeconds: number) =>
  new ApiException(
    HttpStatus.TOO_MANY_REQUESTS,
    ErrorCode.GUEST_ACCOUNT_LIMIT,
    `this address has made its ${limit} guest accounts for now: sign in with a device that has an account, or with an identity ` +
      `provider, or make a guest again in ${retryAfterSeconds} s`,
    { limit },
    retryAfterSeconds,
  );

const unknownRefreshToken = () => unauthorized('the refresh token is unknown: sign in again');
