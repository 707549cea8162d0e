import { Injectable } from '@nestjs/common';
import type { Caller } from '../../common/auth.decorators.js';
import { notFound } from '../../common/errors.js';
import { AuditEvent, AuthAuditRepository } from '../auth-audit.repository.js';
import type { PlayerSessionDto } from './dto/sign-in-session.dto.js';
import { type ClientInfo, type SignInSessionRow, SignInSessionsRepository } from './sign-in-sessions.repository.js';
import { RevocationList } from './revocation-list.js';
import { UsersRepository } from '../users/users.repository.js';

/** A player's sign-in sessions: see them, sign out of one, of this one, or of all (docs/SECURITY.md). */
@Injectable()
export class SignInSessionsService {
  constructor(
    private readonly sessions: SignInSessionsRepository,
    private readonly users: UsersRepository,
    private readonly audit: AuthAuditRepository,
    private readonly revocations: RevocationList,
  ) {}

  async list(caller: Caller): Promise<PlayerSessionDto[]> {
    return (await this.sessions.active([caller.uid])).map((session) => sessionView(session, caller.sessionUid));
  }

  /** Signs out the session of the caller's token: its access and refresh tokens stop working, everywhere. */
  async logout(caller: Caller, client: ClientInfo): Promise<void> {
    await this.revocations.transaction(async (transaction) => {
      await this.sessions.revoke(transaction, caller.sessionUid, 'logout');
      await this.audit.record(
        { userUid: caller.uid, event: AuditEvent.LOGOUT, outcome: 'success', sessionUid: caller.sessionUid, ...client },
        transaction,
      );
      return { revocation: { userUid: caller.uid, sessionUids: [caller.sessionUid], reason: 'logout' as const } };
    });
  }

  /** Signs out every session of the caller's user, and withdraws every token issued until now. */
  async logoutAll(caller: Caller, client: ClientInfo): Promise<void> {
    await this.revocations.transaction(async (transaction) => {
      const sessionUids = await this.sessions.revokeAllOf(transaction, caller.uid, 'logout-all');
      const notBefore = await this.users.withdrawTokens(transaction, caller.uid);
      await this.audit.record(
        {
          userUid: caller.uid,
          event: AuditEvent.LOGOUT_ALL,
          outcome: 'success',
          sessionUid: caller.sessionUid,
          ...client,
          detail: { sessions: sessionUids.length },
        },
        transaction,
      );
      return { revocation: { userUid: caller.uid, sessionUids, notBefore: notBefore.getTime(), reason: 'logout-all' as const } };
    });
  }

  /** Revokes one session: the caller's own, or anyone's for an admin. Another's answers 404, like an unknown one. */
  async revoke(caller: Caller, sessionUid: string, client: ClientInfo): Promise<void> {
    const owner = await this.sessions.ownerOf(sessionUid);
    if (owner === undefined || (owner !== caller.uid && !caller.isAdmin)) throw notFound('session', sessionUid);
    await this.revocations.transaction(async (transaction) => {
      const revoked = await this.sessions.revoke(transaction, sessionUid, 'revoked');
      if (revoked === undefined) return {};
      await this.audit.record(
        { userUid: owner, event: AuditEvent.SESSION_REVOKED, outcome: 'success', sessionUid, ...client, detail: { by: caller.uid } },
        transaction,
      );
      return { revocation: { userUid: owner, sessionUids: [sessionUid], reason: 'revoked' as const } };
    });
  }
}

export function sessionView(session: SignInSessionRow, currentSessionUid?: string): PlayerSessionDto {
  const { uid, provider, address, userAgent, dateCreated, lastRefreshedAt, expiresAt } = session;
  return { uid, provider, address, userAgent, dateCreated, lastRefreshedAt, expiresAt, current: uid === currentSessionUid };
}
