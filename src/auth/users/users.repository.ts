import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository, type Transaction } from '../../database/record.repository.js';
import { type Statement, statement } from '../../database/statement.js';
import { User } from './user.entity.js';

@Injectable()
export class UsersRepository extends RecordRepository<User> {
  private readonly banning: Statement<{ uid: string; until: Date | null; reason: string }>;
  private readonly unbanning: Statement<{ uid: string }>;

  constructor(dataSource: DataSource) {
    super(dataSource, User, 'user');
    this.banning = statement(
      'ban_user',
      (p) => `UPDATE users SET "bannedAt" = now(), "bannedUntil" = ${p.until}, "banReason" = ${p.reason}, "notBefore" = now(),
              version = version + 1, "dateModified" = now()
       WHERE uid = ${p.uid} RETURNING ${this.returning}`,
    );
    this.unbanning = statement(
      'unban_user',
      (p) => `UPDATE users SET "bannedAt" = NULL, "bannedUntil" = NULL, "banReason" = NULL, version = version + 1, "dateModified" = now()
       WHERE uid = ${p.uid} RETURNING ${this.returning}`,
    );
  }

  /** Bans the user; tokens issued before now no longer count. Undefined: no such user. */
  async ban(transaction: Transaction, uid: string, reason: string, until: Date | null): Promise<User | undefined> {
    const [user] = this.recordsOf(await this.run(transaction, this.banning, { uid, until, reason }));
    return user;
  }

  /** Lifts the user's ban (their old tokens stay void). Undefined: no such user. */
  async unban(transaction: Transaction, uid: string): Promise<User | undefined> {
    const [user] = this.recordsOf(await this.run(transaction, this.unbanning, { uid }));
    return user;
  }

  /** Those of `uids` that name no user. */
  async unknownUids(uids: string[]): Promise<string[]> {
    if (uids.length === 0) return [];
    const rows = await this.run(undefined, UNKNOWN_UIDS, { uids: [...new Set(uids)] });
    return rows.map((row) => row.uid);
  }

  /** Tokens of the user issued before now no longer count (signing out everywhere). */
  async withdrawTokens(transaction: Transaction, uid: string): Promise<Date> {
    const [row] = await this.run(transaction, WITHDRAW_TOKENS, { uid });
    return row.notBefore;
  }
}

/** SQL: whether the user (of table alias `alias`) is banned at this moment; a ban whose end has passed is over. */
export const bannedNow = (alias: string) =>
  `(${alias}."bannedAt" IS NOT NULL AND (${alias}."bannedUntil" IS NULL OR ${alias}."bannedUntil" > now()))`;

const UNKNOWN_UIDS = statement<{ uids: string[] }, { uid: string }>(
  'unknown_user_uids',
  (p) => `SELECT w.uid FROM unnest(${p.uids}::uuid[]) AS w(uid) WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.uid = w.uid)`,
);

const WITHDRAW_TOKENS = statement<{ uid: string }, { notBefore: Date }>(
  'withdraw_user_tokens',
  (p) => `UPDATE users SET "notBefore" = now() WHERE uid = ${p.uid} RETURNING "notBefore"`,
);
