import { Injectable } from '@nestjs/common';
import { AccountService } from './account.service.js';
import type { AchievementUnlock } from '../achievements/achievement-unlock.entity.js';
import { AchievementUnlocksService } from '../achievements/achievements.service.js';
import { AuditEvent, AuthAuditRepository } from '../auth/auth-audit.repository.js';
import type { IdentityProvider } from '../auth/users/identity.js';
import type { ClientInfo } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import { SignInSessionsRepository } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import { sessionView } from '../auth/sign-in-sessions/sign-in-sessions.service.js';
import { RevocationList } from '../auth/sign-in-sessions/revocation-list.js';
import type { User } from '../auth/users/user.entity.js';
import { UsersRepository } from '../auth/users/users.repository.js';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest, notFound } from '../common/errors.js';
import type { ListQuery } from '../common/list-query.js';
import type { PlayerSessionDto } from '../auth/sign-in-sessions/dto/sign-in-session.dto.js';
import type { AuditEntryDto } from './dto/audit-entry.dto.js';
import type { BanDto } from './dto/ban.dto.js';
import type { UserAccountDto } from './dto/user-account.dto.js';
import { mapPage } from '../common/page.js';
import { LeaderboardRecordsRepository } from '../leaderboards/leaderboard-records.repository.js';

/** The admins' view of accounts: who signed in where, bans, and the audit (docs/SECURITY.md). */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SignInSessionsRepository,
    private readonly audit: AuthAuditRepository,
    private readonly revocations: RevocationList,
    private readonly accountService: AccountService,
    private readonly leaderboardRecords: LeaderboardRecordsRepository,
    private readonly unlocks: AchievementUnlocksService,
  ) {}

  async findAll(list: ListQuery): Promise<UserAccountDto[]> {
    return this.accounts(await this.users.findAll(list, undefined));
  }

  async findOne(uid: string): Promise<UserAccountDto> {
    const [account] = await this.accounts([await this.users.findOne(uid, undefined)]);
    return account;
  }

  /**
   * Bans the user: no sign-in or refresh until the ban ends, every session revoked and every token
   * issued until now void, on every instance within a second; their sockets close.
   */
  async ban(admin: Caller, uid: string, body: BanDto, client: ClientInfo): Promise<UserAccountDto> {
    const until = body.until === undefined ? null : new Date(body.until);
    if (until && !(until.getTime() > Date.now())) {
      throw badRequest('until must be in the future (leave it out for a ban without end)', [
        { field: 'until', message: 'must be in the future' },
      ]);
    }
    if (uid === admin.uid) throw badRequest('an admin cannot ban themselves', [{ field: 'id', message: 'is your own user' }]);
    const { user } = await this.revocations.transaction(async (transaction) => {
      const banned = await this.users.ban(transaction, uid, body.reason, until);
      if (!banned) throw notFound('user', uid);
      const sessionUids = await this.sessions.revokeAllOf(transaction, uid, 'banned');
      // Hidden from every leaderboard's ranks and reads while the ban lasts.
      await this.leaderboardRecords.setHidden(transaction, uid, true);
      await this.audit.record(
        {
          userUid: uid,
          event: AuditEvent.BAN,
          outcome: 'success',
          ...client,
          detail: { by: admin.uid, reason: body.reason, until: until?.toISOString() ?? null, sessions: sessionUids.length },
        },
        transaction,
      );
      return { user: banned, revocation: { userUid: uid, sessionUids, notBefore: banned.notBefore!.getTime(), reason: 'banned' as const } };
    });
    return this.findOneOf(user);
  }

  /** Lifts a ban: the user may sign in again (the sessions and tokens the ban voided stay void). */
  async unban(admin: Caller, uid: string, client: ClientInfo): Promise<UserAccountDto> {
    const user = await this.users.transaction(async (transaction) => {
      const unbanned = await this.users.unban(transaction, uid);
      if (!unbanned) throw notFound('user', uid);
      await this.leaderboardRecords.setHidden(transaction, uid, false);
      await this.audit.record(
        { userUid: uid, event: AuditEvent.UNBAN, outcome: 'success', ...client, detail: { by: admin.uid } },
        transaction,
      );
      return unbanned;
    });
    return this.findOneOf(user);
  }

  /**
   * Removes the user's identity of a provider (every device, for `device`), a support case: the
   * sessions it opened end, the user keeps at least one identity (409 LAST_IDENTITY).
   */
  async unlinkIdentity(admin: Caller, uid: string, provider: IdentityProvider, client: ClientInfo): Promise<UserAccountDto> {
    await this.accountService.unlink(admin, uid, { provider }, client);
    return this.findOne(uid);
  }

  /**
   * Signs the user out everywhere, as their own "sign out everywhere" would: every session revoked and
   * every token issued until now void; unlike a ban, they may sign in again at once.
   */
  async revokeSessions(admin: Caller, uid: string, client: ClientInfo): Promise<void> {
    await this.users.findOne(uid, undefined);
    await this.revocations.transaction(async (transaction) => {
      const sessionUids = await this.sessions.revokeAllOf(transaction, uid, 'revoked');
      const notBefore = await this.users.withdrawTokens(transaction, uid);
      await this.audit.record(
        {
          userUid: uid,
          event: AuditEvent.SESSION_REVOKED,
          outcome: 'success',
          ...client,
          detail: { by: admin.uid, sessions: sessionUids.length },
        },
        transaction,
      );
      return { revocation: { userUid: uid, sessionUids, notBefore: notBefore.getTime(), reason: 'revoked' as const } };
    });
  }

  /** The user's achievement unlocks, with the list rules. */
  async unlocksOf(uid: string, list: ListQuery): Promise<AchievementUnlock[]> {
    await this.users.findOne(uid, undefined);
    return this.unlocks.findAllOf(uid, list);
  }

  /** The user's audit, newest first. */
  async auditOf(uid: string, limit: number, before: string | undefined): Promise<AuditEntryDto[]> {
    await this.users.findOne(uid, undefined);
    return this.audit.list(uid, limit, before);
  }

  private async findOneOf(user: User): Promise<UserAccountDto> {
    const [account] = await this.accounts([user]);
    return account;
  }

  private async accounts(users: User[]): Promise<UserAccountDto[]> {
    if (users.length === 0) return [];
    const sessions = new Map<string, PlayerSessionDto[]>();
    for (const session of await this.sessions.active(users.map(({ uid }) => uid))) {
      sessions.set(session.userUid, [...(sessions.get(session.userUid) ?? []), sessionView(session)]);
    }
    const identities = await this.accountService.identitiesOf(users.map(({ uid }) => uid));
    const now = Date.now();
    return mapPage(users, (user) => ({
      uid: user.uid,
      dateCreated: user.dateCreated,
      dateModified: user.dateModified,
      version: user.version,
      provider: user.provider,
      subject: user.subject,
      identities: identities.get(user.uid) ?? [],
      name: user.name,
      email: user.email,
      banned: user.bannedAt !== null && (user.bannedUntil === null || user.bannedUntil.getTime() > now),
      bannedAt: user.bannedAt,
      bannedUntil: user.bannedUntil,
      banReason: user.banReason,
      sessions: sessions.get(user.uid) ?? [],
    }));
  }
}
