import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/record.repository.js';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';
import { transact } from '../../database/after-commit.js';
import { runStatement, type Statement, statement } from '../../database/statement.js';
import type { VerifiedIdentity } from './identity.js';
import { UserIdentity } from './user-identity.entity.js';

export interface IdentityRow {
  uid: string;
  userUid: string;
  provider: string;
  subject: string;
  dateCreated: Date;
}

const IDENTITY_COLUMNS = `i.uid, i."userUid", i.provider, i.subject, i."dateCreated"`;

const LOCK_ACCOUNT = statement<{ userUid: string }, { uid: string }>(
  'lock_account',
  (p) => `SELECT uid FROM users WHERE uid = ${p.userUid} FOR NO KEY UPDATE`,
);

const LINK = statement<{ userUid: string; provider: string; subject: string; name: string | null; email: string | null }, IdentityRow>(
  'link_identity',
  (p) => `WITH linked AS (
         INSERT INTO user_identities ("userUid", provider, subject) VALUES (${p.userUid}, ${p.provider}, ${p.subject})
         ON CONFLICT (provider, subject) DO NOTHING
         RETURNING *
       ), account AS (
         UPDATE users SET name = coalesce(name, ${p.name}), email = coalesce(email, ${p.email}),
                version = version + 1, "dateModified" = now()
         WHERE uid = ${p.userUid} AND EXISTS (SELECT 1 FROM linked)
       )
       SELECT ${IDENTITY_COLUMNS} FROM linked i`,
);

const UNLINK = statement<{ userUid: string; uids: string[] }, { uid: string }>(
  'unlink_identities',
  (p) => `WITH unlinked AS (
         DELETE FROM user_identities WHERE "userUid" = ${p.userUid} AND uid = ANY(${p.uids}::uuid[]) RETURNING uid
       ), account AS (
         UPDATE users SET version = version + 1, "dateModified" = now()
         WHERE uid = ${p.userUid} AND EXISTS (SELECT 1 FROM unlinked)
       )
       SELECT uid FROM unlinked`,
);

/**
 * The SQL of identities, the ways into an account (sign-in reads them in SignInSessionsRepository's
 * one statement). Linking and unlinking change a user's identities under a lock on the user, so that
 * the rules about what remains (LAST_IDENTITY) hold against concurrent requests.
 */
@Injectable()
export class IdentitiesRepository {
  private readonly prepared: boolean;

  constructor(
    private readonly dataSource: DataSource,
    @InjectConfig() config: AppConfig,
  ) {
    this.prepared = config.preparedStatements;
  }

  /** Runs `work` in one database transaction. */
  transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    return transact(this.dataSource, work);
  }

  private run<P extends object, R>(transaction: Transaction, named: Statement<P, R>, values: P): Promise<R[]> {
    return runStatement(transaction, named, values, this.prepared);
  }

  /**
   * Locks the user's account for a change of its identities (links and unlinks of one user take turns)
   * and answers its identities, oldest first; undefined: no such user.
   */
  async lockIdentities(transaction: Transaction, userUid: string): Promise<IdentityRow[] | undefined> {
    const [user] = await runStatement(transaction, LOCK_ACCOUNT, { userUid });
    if (!user) return undefined;
    return this.identitiesQuery(transaction, [userUid]).getRawMany<IdentityRow>();
  }

  /** Whose the identity is; undefined: nobody's. */
  async ownerOf(identity: VerifiedIdentity, transaction: Transaction = this.dataSource.manager): Promise<string | undefined> {
    const row = await transaction
      .createQueryBuilder(UserIdentity, 'i')
      .select('i.userUid', 'userUid')
      .where('i.provider = :provider AND i.subject = :subject', { provider: identity.provider, subject: identity.subject })
      .getRawOne<{ userUid: string }>();
    return row?.userUid;
  }

  /**
   * Adds the identity to the user (whose name and email it fills in when they have none); undefined
   * when it belongs to someone already (a concurrent link or sign-in took it: nothing was written).
   */
  async link(transaction: Transaction, userUid: string, identity: VerifiedIdentity): Promise<IdentityRow | undefined> {
    const [row] = await runStatement(transaction, LINK, {
      userUid,
      provider: identity.provider,
      subject: identity.subject,
      name: identity.name ?? null,
      email: identity.email ?? null,
    });
    return row;
  }

  /** Removes these identities of the user; answers those it removed. */
  async unlink(transaction: Transaction, userUid: string, identityUids: string[]): Promise<string[]> {
    const rows = await runStatement(transaction, UNLINK, { userUid, uids: identityUids });
    return rows.map(({ uid }) => uid);
  }

  /** The identities of these users, each user's oldest first. */
  identitiesOf(userUids: string[]): Promise<IdentityRow[]> {
    if (userUids.length === 0) return Promise.resolve([]);
    return this.identitiesQuery(this.dataSource.manager, userUids).getRawMany<IdentityRow>();
  }

  private identitiesQuery(transaction: Transaction, userUids: string[]) {
    return transaction
      .createQueryBuilder(UserIdentity, 'i')
      .select('i.uid', 'uid')
      .addSelect('i.userUid', 'userUid')
      .addSelect('i.provider', 'provider')
      .addSelect('i.subject', 'subject')
      .addSelect('i.dateCreated', 'dateCreated')
      .where('i.userUid IN (:...userUids)', { userUids })
      .orderBy('i.dateCreated', 'ASC')
      .addOrderBy('i.uid', 'ASC');
  }
}
