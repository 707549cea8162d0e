import { HttpStatus, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ApiException, conflict, ErrorCode, unauthorized } from '../common/errors.js';
import type { Transaction } from '../common/record.repository.js';
import { hashSecretToken, SECRET_TOKEN_PATTERN } from '../common/secret-token.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { PersonasRepository } from '../personas/personas.repository.js';
import { AuditEvent, AuthAuditRepository } from './auth-audit.repository.js';
import type { TokenDto } from './dto/token.dto.js';
import type { ProviderIdentity } from './identity.js';
import { type ClientInfo, type PlayerSessionRow, PlayerSessionsRepository } from './player-sessions.repository.js';
import { refreshVerdict } from './refresh.rules.js';
import type { Revocation } from './revocation.js';
import { RevocationList } from './revocation-list.js';
import type { User } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

export const ADMIN_ROLE = 'admin';
export const USER_ROLE = 'user';

/** Sessions a user may hold at once; signing in once more ends the oldest (docs/SECURITY.md). */
export const MAX_SESSIONS_PER_USER = 50;

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
 * Signing in and staying signed in: a verified provider identity opens a player session, and the
 * session's single-use refresh tokens renew its access tokens (docs/SECURITY.md).
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersRepository,
    private readonly personas: PersonasRepository,
    private readonly sessions: PlayerSessionsRepository,
    private readonly audit: AuthAuditRepository,
    private readonly revocations: RevocationList,
    private readonly jwt: JwtService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /**
   * Exchanges a verified provider identity for our tokens, creating the user on the first sign-in and
   * opening a session; a banned user is refused (and the attempt audited).
   */
  async signIn(identity: ProviderIdentity, client: ClientInfo): Promise<TokenDto> {
    const outcome = await this.revocations.transaction(async (transaction) => {
      const user = await this.findOrCreateUser(transaction, identity);
      const ban = await this.users.lockBanState(transaction, user.uid);
      if (ban.banned) return { user, bannedUntil: ban.until };
      const opened = await this.sessions.open(transaction, { userUid: user.uid, provider: identity.provider, ...client }, this.refreshTtl);
      const evicted = await this.sessions.revokeBeyond(transaction, user.uid, MAX_SESSIONS_PER_USER, 'session-limit');
      await this.audit.record(
        {
          userUid: user.uid,
          event: AuditEvent.SIGN_IN,
          outcome: 'success',
          sessionUid: opened.session.uid,
          ...client,
          detail: { provider: identity.provider },
        },
        transaction,
      );
      const revocation: Revocation | undefined =
        evicted.length > 0 ? { userUid: user.uid, sessionUids: evicted, reason: 'session-limit' } : undefined;
      return { user, opened, revocation };
    });
    if (!outcome.opened) {
      await this.audit.record({
        userUid: outcome.user.uid,
        event: AuditEvent.SIGN_IN,
        outcome: 'refused',
        ...client,
        detail: { provider: identity.provider, reason: 'banned' },
      });
      throw banned(outcome.bannedUntil ?? null);
    }
    return this.tokens(identity, outcome.opened.session, outcome.opened.refreshToken);
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

  /** A new access token for the session, with the refresh token that renews it. */
  private async tokens(who: { provider: string; subject: string }, session: PlayerSessionRow, refreshToken: string): Promise<TokenDto> {
    // Roles are decided afresh at every refresh: removing someone from ADMIN_USERS takes effect then.
    const roles = this.config.adminUsers.includes(`${who.provider}:${who.subject}`) ? [USER_ROLE, ADMIN_ROLE] : [USER_ROLE];
    const claims: AccessTokenClaims = { sub: session.userUid, roles, sid: session.uid };
    return { token: await this.jwt.signAsync(claims), refreshToken, expiresIn: this.config.jwt.ttlSeconds };
  }

  private get refreshTtl(): number {
    return this.config.sessions.refreshTtlSeconds;
  }

  /**
   * The first sign-in of a (provider, subject) creates the user and a default persona, in one
   * transaction; two first sign-ins racing each other end with one user (the unique key decides).
   */
  private async findOrCreateUser(transaction: Transaction, identity: ProviderIdentity): Promise<User> {
    const { user, created } = await this.users.insertOrFind(transaction, identity);
    if (created) await this.personas.insert({ userUid: user.uid, name: (identity.name ?? identity.subject).slice(0, 100) }, transaction);
    return user;
  }
}

const unknownRefreshToken = () => unauthorized('the refresh token is unknown: sign in again');
