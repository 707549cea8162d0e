import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository, type Transaction } from '../common/record.repository.js';
import type { ProviderIdentity } from './identity.js';
import { User } from './user.entity.js';

@Injectable()
export class UsersRepository extends RecordRepository<User> {
  constructor(dataSource: DataSource) {
    super(dataSource, User, 'user');
  }

  /** The user of a (provider, subject), inserted unless it exists: `created` says which. */
  async insertOrFind(transaction: Transaction, identity: ProviderIdentity): Promise<{ user: User; created: boolean }> {
    const { provider, subject } = identity;
    const inserted = await this.insertUnlessConflict({ provider, subject, name: identity.name, email: identity.email }, transaction);
    if (inserted) return { user: inserted, created: true };
    return { user: await transaction.findOneByOrFail(User, { provider, subject }), created: false };
  }

  /**
   * Whether the user is banned now, read under a share lock: a ban being written waits for the
   * sign-in to commit (and then revokes the session it opened), or the sign-in waits and sees the ban.
   */
  async lockBanState(transaction: Transaction, uid: string): Promise<BanState> {
    const [row] = await transaction.query<BanState[]>(
      `SELECT ${bannedNow('u')} AS banned, u."bannedUntil" AS until FROM users u WHERE u.uid = $1 FOR SHARE`,
      [uid],
    );
    return row;
  }

  /** Bans the user; tokens issued before now no longer count. Undefined: no such user. */
  async ban(transaction: Transaction, uid: string, reason: string, until: Date | null): Promise<User | undefined> {
    const [rows] = await transaction.query<[User[], number]>(
      `UPDATE users SET "bannedAt" = now(), "bannedUntil" = $2, "banReason" = $3, "notBefore" = now(),
              version = version + 1, "dateModified" = now()
       WHERE uid = $1 RETURNING *`,
      [uid, until, reason],
    );
    return rows[0] && transaction.create(User, rows[0]);
  }

  /** Lifts the user's ban (their old tokens stay void). Undefined: no such user. */
  async unban(transaction: Transaction, uid: string): Promise<User | undefined> {
    const [rows] = await transaction.query<[User[], number]>(
      `UPDATE users SET "bannedAt" = NULL, "bannedUntil" = NULL, "banReason" = NULL, version = version + 1, "dateModified" = now()
       WHERE uid = $1 RETURNING *`,
      [uid],
    );
    return rows[0] && transaction.create(User, rows[0]);
  }

  /** Those of `uids` that name no user. */
  async unknownUids(uids: string[]): Promise<string[]> {
    if (uids.length === 0) return [];
    const rows = await this.dataSource.query<Array<{ uid: string }>>(
      'SELECT w.uid FROM unnest($1::uuid[]) AS w(uid) WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.uid = w.uid)',
      [[...new Set(uids)]],
    );
    return rows.map((row) => row.uid);
  }

  /** Tokens of the user issued before now no longer count (signing out everywhere). */
  async withdrawTokens(transaction: Transaction, uid: string): Promise<Date> {
    const [[row]] = await transaction.query<[Array<{ notBefore: Date }>, number]>(
      `UPDATE users SET "notBefore" = now() WHERE uid = $1 RETURNING "notBefore"`,
      [uid],
    );
    return row.notBefore;
  }
}

/** SQL: whether the user (of table alias `alias`) is banned at this moment; a ban whose end has passed is over. */
export const bannedNow = (alias: string) =>
  `(${alias}."bannedAt" IS NOT NULL AND (${alias}."bannedUntil" IS NULL OR ${alias}."bannedUntil" > now()))`;

export interface BanState {
  banned: boolean;
  /** When the ban ends; null with `banned`: until an admin lifts it. */
  until: Date | null;
}
