import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../common/record.repository.js';
import { newSecretToken } from '../common/secret-token.js';
import type { Revocation } from './revocation.js';
import { bannedNow } from './users.repository.js';
import { transact } from '../database/after-commit.js';
import { Fanout } from '../database/fanout.js';

/** A player session: one sign-in, kept alive by refreshes until it expires or is revoked. */
export interface PlayerSessionRow {
  uid: string;
  userUid: string;
  provider: string;
  address: string | null;
  userAgent: string | null;
  dateCreated: Date;
  lastRefreshedAt: Date | null;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** Where a sign-in came from, as recorded on its session and in the audit. */
export interface ClientInfo {
  address: string | null;
  userAgent: string | null;
}

/** A refresh token presented, with what decides its fate (computed by PostgreSQL, on its clock). */
export interface PresentedRefreshToken {
  session: PlayerSessionRow;
  /** The user's identity (roles are recomputed from it). */
  provider: string;
  subject: string;
  spent: boolean;
  /** Spent within the reuse grace: a concurrent refresh, not a replay. */
  spentRecently: boolean;
  expired: boolean;
  banned: boolean;
  bannedUntil: Date | null;
}

/** The revocations that may still matter: those younger than the longest life of an access token. */
export interface RecentRevocations {
  sessions: Array<{ uid: string; userUid: string; revokedAt: Date }>;
  users: Array<{ uid: string; notBefore: Date }>;
}

export const REVOCATIONS_CHANNEL = 'revocations';

const SESSION_COLUMNS = `s.uid, s."userUid", s.provider, s.address, s."userAgent", s."dateCreated", s."lastRefreshedAt", s."expiresAt", s."revokedAt"`;

/**
 * The SQL of player sessions and their refresh tokens (stored as hashes; a token is spent once used).
 * Revocations are announced on the `revocations` channel in the transaction that makes them, so every
 * instance hears of them when, and only if, they commit.
 */
@Injectable()
export class PlayerSessionsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly fanout: Fanout,
  ) {}

  transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    return transact(this.dataSource, work);
  }

  /** Opens a session for a sign-in, with its first refresh token. */
  async open(
    transaction: Transaction,
    values: ClientInfo & { userUid: string; provider: string },
    ttlSeconds: number,
  ): Promise<{ session: PlayerSessionRow; refreshToken: string }> {
    const { token, hash } = newSecretToken();
    const [session] = await transaction.query<PlayerSessionRow[]>(
      `WITH s AS (
         INSERT INTO auth_sessions ("userUid", provider, address, "userAgent", "expiresAt")
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
         RETURNING *
       ), t AS (
         INSERT INTO auth_refresh_tokens (hash, "sessionUid") SELECT $6, uid FROM s
       )
       SELECT ${SESSION_COLUMNS} FROM s`,
      [values.userUid, values.provider, values.address, values.userAgent, ttlSeconds, hash],
    );
    return { session, refreshToken: token };
  }

  /**
   * The session of a refresh token, locked with the token (so concurrent refreshes of one session take
   * turns and each sees what the one before did), or undefined for a token never issued.
   */
  async lockByRefreshToken(transaction: Transaction, hash: string, reuseGraceMs: number): Promise<PresentedRefreshToken | undefined> {
    const [row] = await transaction.query<Array<Omit<PresentedRefreshToken, 'session'> & PlayerSessionRow>>(
      `SELECT ${SESSION_COLUMNS}, u.provider AS "userProvider", u.subject,
              t."spentAt" IS NOT NULL AS spent,
              t."spentAt" > now() - make_interval(secs => $2::double precision / 1000) AS "spentRecently",
              s."expiresAt" <= now() AS expired,
              ${bannedNow('u')} AS banned, u."bannedUntil"
       FROM auth_refresh_tokens t
       JOIN auth_sessions s ON s.uid = t."sessionUid"
       JOIN users u ON u.uid = s."userUid"
       WHERE t.hash = $1
       FOR NO KEY UPDATE OF t, s`,
      [hash, reuseGraceMs],
    );
    if (!row) return undefined;
    const { spent, spentRecently, expired, banned, bannedUntil, subject } = row;
    const { userProvider } = row as unknown as { userProvider: string };
    const session: PlayerSessionRow = {
      uid: row.uid,
      userUid: row.userUid,
      provider: row.provider,
      address: row.address,
      userAgent: row.userAgent,
      dateCreated: row.dateCreated,
      lastRefreshedAt: row.lastRefreshedAt,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
    };
    return { session, provider: userProvider, subject, spent, spentRecently: spentRecently === true, expired, banned, bannedUntil };
  }

  /** Spends a refresh token and issues the session's next one; the session lives `ttlSeconds` from now. */
  async rotate(
    transaction: Transaction,
    sessionUid: string,
    spentHash: string,
    ttlSeconds: number,
  ): Promise<{ session: PlayerSessionRow; refreshToken: string }> {
    const { token, hash } = newSecretToken();
    await transaction.query(`UPDATE auth_refresh_tokens SET "spentAt" = now() WHERE hash = $1`, [spentHash]);
    await transaction.query(`INSERT INTO auth_refresh_tokens (hash, "sessionUid") VALUES ($1, $2)`, [hash, sessionUid]);
    const [[session]] = await transaction.query<[PlayerSessionRow[], number]>(
      `UPDATE auth_sessions s SET "lastRefreshedAt" = now(), "expiresAt" = now() + make_interval(secs => $2)
       WHERE uid = $1 RETURNING ${SESSION_COLUMNS}`,
      [sessionUid, ttlSeconds],
    );
    return { session, refreshToken: token };
  }

  /** Revokes one session (unless it was already); answers whose it was, if this revoked it. */
  async revoke(transaction: Transaction, sessionUid: string, reason: string): Promise<string | undefined> {
    const [rows] = await transaction.query<[Array<{ userUid: string }>, number]>(
      `UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = $2 WHERE uid = $1 AND "revokedAt" IS NULL RETURNING "userUid"`,
      [sessionUid, reason],
    );
    return rows[0]?.userUid;
  }

  /** Revokes every session of the user still standing; answers their ids. */
  async revokeAllOf(transaction: Transaction, userUid: string, reason: string): Promise<string[]> {
    const [rows] = await transaction.query<[Array<{ uid: string }>, number]>(
      `UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = $2 WHERE "userUid" = $1 AND "revokedAt" IS NULL RETURNING uid`,
      [userUid, reason],
    );
    return rows.map(({ uid }) => uid);
  }

  /** Revokes the user's active sessions beyond the `keep` newest; answers their ids. */
  async revokeBeyond(transaction: Transaction, userUid: string, keep: number, reason: string): Promise<string[]> {
    const [rows] = await transaction.query<[Array<{ uid: string }>, number]>(
      `UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = $3
       WHERE uid IN (
         SELECT uid FROM auth_sessions WHERE "userUid" = $1 AND "revokedAt" IS NULL AND "expiresAt" > now()
         ORDER BY "dateCreated" DESC, uid DESC OFFSET $2
       )
       RETURNING uid`,
      [userUid, keep, reason],
    );
    return rows.map(({ uid }) => uid);
  }

  /** Tells every instance (this one included) of a revocation, when the transaction commits. */
  announce(transaction: Transaction, revocation: Revocation): Promise<void> {
    return this.fanout.announce(transaction, REVOCATIONS_CHANNEL, JSON.stringify(revocation));
  }

  /** The active sessions of these users, newest first. */
  active(userUids: string[]): Promise<PlayerSessionRow[]> {
    return this.dataSource.query<PlayerSessionRow[]>(
      `SELECT ${SESSION_COLUMNS} FROM auth_sessions s
       WHERE s."userUid" = ANY($1::uuid[]) AND s."revokedAt" IS NULL AND s."expiresAt" > now()
       ORDER BY s."dateCreated" DESC, s.uid DESC`,
      [userUids],
    );
  }

  /** Whose session this is (undefined: no such session). */
  async ownerOf(sessionUid: string): Promise<string | undefined> {
    const [row] = await this.dataSource.query<Array<{ userUid: string }>>(`SELECT "userUid" FROM auth_sessions WHERE uid = $1`, [
      sessionUid,
    ]);
    return row?.userUid;
  }

  /** Revocations made in the last `seconds`. */
  async recentRevocations(seconds: number): Promise<RecentRevocations> {
    const since = [seconds];
    const [sessions, users] = await Promise.all([
      this.dataSource.query<RecentRevocations['sessions']>(
        `SELECT uid, "userUid", "revokedAt" FROM auth_sessions WHERE "revokedAt" > now() - make_interval(secs => $1)`,
        since,
      ),
      this.dataSource.query<RecentRevocations['users']>(
        `SELECT uid, "notBefore" FROM users WHERE "notBefore" > now() - make_interval(secs => $1)`,
        since,
      ),
    ]);
    return { sessions, users };
  }

  /**
   * Whether a token of this session issued at `issuedAt` no longer counts, asked of the database (while
   * an instance cannot be sure its in-memory list is current). A session that does not exist counts as
   * revoked: our tokens only name sessions we opened.
   */
  async isRevoked(userUid: string, sessionUid: string, issuedAt: Date): Promise<boolean> {
    const [row] = await this.dataSource.query<Array<{ revoked: boolean }>>(
      `SELECT coalesce((SELECT "revokedAt" IS NOT NULL FROM auth_sessions WHERE uid = $2 AND "userUid" = $1), true)
           OR coalesce((SELECT date_trunc('second', "notBefore") > $3 FROM users WHERE uid = $1), false) AS revoked`,
      [userUid, sessionUid, issuedAt],
    );
    return row.revoked;
  }

  /**
   * Forgets sessions ended (expired or revoked) more than `endedSeconds` ago, with their refresh tokens,
   * and refresh tokens spent more than `spentSeconds` ago (a replay of one is then an unknown token).
   */
  async prune(endedSeconds: number, spentSeconds: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM auth_sessions
       WHERE "expiresAt" < now() - make_interval(secs => $1) OR "revokedAt" < now() - make_interval(secs => $1)`,
      [endedSeconds],
    );
    await this.dataSource.query(`DELETE FROM auth_refresh_tokens WHERE "spentAt" < now() - make_interval(secs => $1)`, [spentSeconds]);
  }
}
