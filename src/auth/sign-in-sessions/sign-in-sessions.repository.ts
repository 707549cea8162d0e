import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/record.repository.js';
import { newSecretToken } from '../../common/secret-token.js';
import type { VerifiedIdentity } from '../users/identity.js';
import type { Revocation } from '../../security/revocation.js';
import { bannedNow } from '../users/users.repository.js';
import { transact } from '../../database/after-commit.js';
import { Fanout } from '../../database/fanout.js';
import { runStatement, type Statement, statement } from '../../database/statement.js';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';

/** A sign-in session (table `player_sessions`): one sign-in, kept alive by refreshes until it expires or is revoked. */
export interface SignInSessionRow {
  uid: string;
  userUid: string;
  provider: string;
  /** The identity that opened it (null: unlinked since, and the session revoked with it). */
  identityUid: string | null;
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
  session: SignInSessionRow;
  /** The identity that opened the session (roles are recomputed from it); null when it was unlinked. */
  provider: string | null;
  subject: string | null;
  spent: boolean;
  /** Spent within the reuse grace: a concurrent refresh, not a replay. */
  spentRecently: boolean;
  expired: boolean;
  banned: boolean;
  bannedUntil: Date | null;
}

/** What a sign-in asks for: the identity, whether it may create its account, and where it comes from. */
export interface SignInRequest extends ClientInfo {
  identity: VerifiedIdentity;
  /** Whether an identity nobody has yet creates its account (user `newAccount.userUid`, with a persona). */
  create: boolean;
  newAccount: { userUid: string; personaName: string };
  ttlSeconds: number;
  /**
   * The bound on the guest accounts an address makes (a device's first sign-in): the address as it
   * counts (`null`: not bounded), and how many a window of `windowSeconds` allows (0: no bound).
   */
  guests: { address: string | null; limit: number; windowSeconds: number };
}

/** What became of a sign-in: a session opened, a banned user refused, or no account (or one being registered). */
export type SignInOutcome =
  | { kind: 'opened'; userUid: string; created: boolean; session: SignInSessionRow; refreshToken: string; evicted: string[] }
  | { kind: 'banned'; userUid: string; bannedUntil: Date | null }
  | { kind: 'guest-limit'; retryAfterSeconds: number }
  | { kind: 'unknown' };

/** The revocations that may still matter: those younger than the longest life of an access token. */
export interface RecentRevocations {
  sessions: Array<{ uid: string; userUid: string; revokedAt: Date }>;
  users: Array<{ uid: string; notBefore: Date }>;
}

export const REVOCATIONS_CHANNEL = 'revocations';

/** Sessions a user may hold at once; signing in once more ends the oldest (docs/SECURITY.md). */
export const MAX_SESSIONS_PER_USER = 50;

const SESSION_COLUMNS = `s.uid, s."userUid", s.provider, s."identityUid", s.address, s."userAgent", s."dateCreated", s."lastRefreshedAt", s."expiresAt", s."revokedAt"`;

// Prepared, as ROTATE: every refresh runs both, and planning this join took PostgreSQL longer than running it.
const LOCK_BY_REFRESH_TOKEN = statement<
  { hash: string; reuseGraceMs: number },
  Omit<PresentedRefreshToken, 'session' | 'provider'> & SignInSessionRow & { identityProvider: string | null }
>(
  'lock_by_refresh_token',
  (p) => `SELECT ${SESSION_COLUMNS}, i.provider AS "identityProvider", i.subject,
              t."spentAt" IS NOT NULL AS spent,
              t."spentAt" > now() - make_interval(secs => ${p.reuseGraceMs}::double precision / 1000) AS "spentRecently",
              s."expiresAt" <= now() AS expired,
              ${bannedNow('u')} AS banned, u."bannedUntil"
       FROM auth_refresh_tokens t
       JOIN auth_sessions s ON s.uid = t."sessionUid"
       JOIN users u ON u.uid = s."userUid"
       LEFT JOIN user_identities i ON i.uid = s."identityUid"
       WHERE t.hash = ${p.hash}
       FOR NO KEY UPDATE OF t, s`,
);

const ROTATE = statement<{ spentHash: string; hash: string; sessionUid: string; ttlSeconds: number }, SignInSessionRow>(
  'rotate_refresh_token',
  (p) => `WITH spent AS (
         UPDATE auth_refresh_tokens SET "spentAt" = now() WHERE hash = ${p.spentHash}
       ), issued AS (
         INSERT INTO auth_refresh_tokens (hash, "sessionUid") VALUES (${p.hash}, ${p.sessionUid})
       ), s AS (
         UPDATE auth_sessions s SET "lastRefreshedAt" = now(), "expiresAt" = now() + make_interval(secs => ${p.ttlSeconds})
         WHERE uid = ${p.sessionUid} RETURNING *
       )
       SELECT ${SESSION_COLUMNS} FROM s`,
);

const REVOKE = statement<{ sessionUid: string; reason: string }, { userUid: string }>(
  'revoke_player_session',
  (p) =>
    `UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = ${p.reason} WHERE uid = ${p.sessionUid} AND "revokedAt" IS NULL RETURNING "userUid"`,
);

const REVOKE_ALL_OF = statement<{ userUid: string; reason: string }, { uid: string }>(
  'revoke_player_sessions_of',
  (p) =>
    `UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = ${p.reason} WHERE "userUid" = ${p.userUid} AND "revokedAt" IS NULL RETURNING uid`,
);

const REVOKE_OPENED_BY = statement<{ identityUids: string[]; reason: string }, { uid: string }>(
  'revoke_player_sessions_opened_by',
  (p) => `UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = ${p.reason}
       WHERE "identityUid" = ANY(${p.identityUids}::uuid[]) AND "revokedAt" IS NULL
       RETURNING uid`,
);

const ACTIVE = statement<{ userUids: string[] }, SignInSessionRow>(
  'active_player_sessions',
  (p) => `SELECT ${SESSION_COLUMNS} FROM auth_sessions s
       WHERE s."userUid" = ANY(${p.userUids}::uuid[]) AND s."revokedAt" IS NULL AND s."expiresAt" > now()
       ORDER BY s."dateCreated" DESC, s.uid DESC`,
);

const OWNER_OF = statement<{ sessionUid: string }, { userUid: string }>(
  'player_session_owner',
  (p) => `SELECT "userUid" FROM auth_sessions WHERE uid = ${p.sessionUid}`,
);

const REVOKED_SESSIONS = statement<{ seconds: number }, RecentRevocations['sessions'][number]>(
  'revoked_player_sessions',
  (p) => `SELECT uid, "userUid", "revokedAt" FROM auth_sessions WHERE "revokedAt" > now() - make_interval(secs => ${p.seconds})`,
);

const WITHDRAWN_TOKENS = statement<{ seconds: number }, RecentRevocations['users'][number]>(
  'withdrawn_tokens',
  (p) => `SELECT uid, "notBefore" FROM users WHERE "notBefore" > now() - make_interval(secs => ${p.seconds})`,
);

const IS_REVOKED = statement<{ userUid: string; sessionUid: string; issuedAt: Date }, { revoked: boolean }>(
  'is_player_session_revoked',
  (
    p,
  ) => `SELECT coalesce((SELECT "revokedAt" IS NOT NULL FROM auth_sessions WHERE uid = ${p.sessionUid} AND "userUid" = ${p.userUid}), true)
           OR coalesce((SELECT date_trunc('second', "notBefore") > ${p.issuedAt} FROM users WHERE uid = ${p.userUid}), false) AS revoked`,
);

const PRUNE_SESSIONS = statement<{ endedSeconds: number }>(
  'prune_player_sessions',
  (p) => `DELETE FROM auth_sessions
       WHERE "expiresAt" < now() - make_interval(secs => ${p.endedSeconds}) OR "revokedAt" < now() - make_interval(secs => ${p.endedSeconds})`,
);

const PRUNE_SPENT_TOKENS = statement<{ spentSeconds: number }>(
  'prune_spent_refresh_tokens',
  (p) => `DELETE FROM auth_refresh_tokens WHERE "spentAt" < now() - make_interval(secs => ${p.spentSeconds})`,
);

interface SignInParameters extends ClientInfo {
  provider: string;
  subject: string;
  create: boolean;
  newUserUid: string;
  originSubject: string | null;
  name: string | null;
  email: string | null;
  personaName: string;
  ttlSeconds: number;
  hash: string;
  guestAddress: string | null;
  guestLimit: number;
  guestWindow: number;
}

/** The account of the sign-in, and its new session: none (`uid` null) when the user is banned. */
type SignInRow = Omit<SignInSessionRow, 'uid' | 'userUid'> & {
  uid: string | null;
  /** null: no account (none has the identity, or one is being registered, or a guest the address may not make). */
  userUid: string | null;
  created: boolean;
  bannedUntil: Date | null;
  evicted: string[];
  /** The address has made its guest accounts of the window: seconds until the next window. */
  guestRetryAfter: number | null;
};

/**
 * SignIn's statement (SignInSessionsRepository.signIn says what it does). The identity goes in before
 * its user: of two first sign-ins racing, the second waits on the identity's unique key, inserts
 * nothing and answers no row; the foreign keys are checked at the statement's end. The new session is
 * invisible to the eviction (one snapshot per statement), which keeps the MAX_SESSIONS_PER_USER - 1
 * newest others. That count is written into the SQL, not passed: a parameter OFFSET makes PostgreSQL's
 * generic plan expect dozens of evictions, so it planned afresh on every call.
 * Data-modifying parts run whether or not the final SELECT reads them; the NOTIFY is read so that it runs.
 * A new guest (a device no account has) first spends one of its address's guest accounts for the
 * window: an upsert on the address's row, whose lock makes racing sign-ins take turns and whose
 * condition is checked on the row as the lock leaves it; none left, nothing is registered and the row
 * says how long until the next window. Two first sign-ins of one device racing may both spend one.
 */
function signInStatement(fanout: Fanout): Statement<SignInParameters, SignInRow> {
  return statement<SignInParameters, SignInRow>(
    'sign_in',
    (p) => `WITH found AS (
         SELECT i.uid AS "identityUid", i."userUid", ${bannedNow('u')} AS banned, u."bannedUntil"
         FROM user_identities i JOIN users u ON u.uid = i."userUid"
         WHERE i.provider = ${p.provider} AND i.subject = ${p.subject}
         FOR SHARE OF u
       ), guest AS (
         SELECT ${p.create} AND ${p.provider} = 'device' AND ${p.guestLimit}::int > 0 AND ${p.guestAddress}::text IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM found) AS bounded,
                to_timestamp(floor(extract(epoch FROM now()) / ${p.guestWindow}::int) * ${p.guestWindow}::int) AS "windowStart"
       ), allowed AS (
         INSERT INTO guest_accounts_by_address AS g (address, "windowStart", created)
         SELECT ${p.guestAddress}, "windowStart", 1 FROM guest WHERE bounded
         ON CONFLICT (address) DO UPDATE
           SET created = CASE WHEN g."windowStart" = EXCLUDED."windowStart" THEN g.created + 1 ELSE 1 END, "windowStart" = EXCLUDED."windowStart"
           WHERE g."windowStart" <> EXCLUDED."windowStart" OR g.created < ${p.guestLimit}::int
         RETURNING address
       ), claimed AS (
         INSERT INTO user_identities ("userUid", provider, subject)
         SELECT ${p.newUserUid}, ${p.provider}, ${p.subject} FROM guest
         WHERE ${p.create} AND NOT EXISTS (SELECT 1 FROM found) AND (NOT guest.bounded OR EXISTS (SELECT 1 FROM allowed))
         ON CONFLICT (provider, subject) DO NOTHING
         RETURNING uid AS "identityUid", "userUid"
       ), registered AS (
         INSERT INTO users (uid, provider, subject, name, email)
         SELECT "userUid", ${p.provider}, ${p.originSubject}, ${p.name}, ${p.email} FROM claimed
         RETURNING uid
       ), persona AS (
         INSERT INTO personas ("userUid", name) SELECT uid, ${p.personaName} FROM registered
       ), account AS (
         SELECT "identityUid", "userUid", banned, "bannedUntil", false AS created FROM found
         UNION ALL SELECT "identityUid", "userUid", false, NULL::timestamptz, true FROM claimed
       ), s AS (
         INSERT INTO auth_sessions ("userUid", provider, "identityUid", address, "userAgent", "expiresAt")
         SELECT "userUid", ${p.provider}, "identityUid", ${p.address}, ${p.userAgent}, now() + make_interval(secs => ${p.ttlSeconds})
         FROM account WHERE NOT banned
         RETURNING *
       ), t AS (
         INSERT INTO auth_refresh_tokens (hash, "sessionUid") SELECT ${p.hash}, uid FROM s
       ), evicted AS (
         UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = 'session-limit'
         WHERE uid IN (
           SELECT other.uid FROM auth_sessions other JOIN s ON other."userUid" = s."userUid"
           WHERE other."revokedAt" IS NULL AND other."expiresAt" > now()
           ORDER BY other."dateCreated" DESC, other.uid DESC OFFSET ${MAX_SESSIONS_PER_USER - 1}
         )
         RETURNING uid, "userUid"
       ), audit AS (
         INSERT INTO auth_audit ("userUid", event, outcome, "sessionUid", address, "userAgent", detail)
         SELECT a."userUid", 'sign-in', CASE WHEN s.uid IS NULL THEN 'refused' ELSE 'success' END, s.uid, ${p.address}, ${p.userAgent},
                jsonb_build_object('provider', ${p.provider}::text) || CASE WHEN s.uid IS NULL THEN '{"reason":"banned"}'::jsonb
                  WHEN a.created THEN '{"created":true}'::jsonb ELSE '{}'::jsonb END
         FROM account a LEFT JOIN s ON true
       ), announced AS (
         SELECT ${fanout.notifySql(
           REVOCATIONS_CHANNEL,
           `json_build_object('userUid', min("userUid"::text), 'sessionUids', json_agg(uid), 'reason', 'session-limit')::text`,
         )} AS notified
         FROM evicted HAVING count(*) > 0
       )
       SELECT a."userUid", a.created, a."bannedUntil", s.uid, s.provider, s."identityUid", s.address, s."userAgent",
              s."dateCreated", s."lastRefreshedAt", s."expiresAt", s."revokedAt",
              ARRAY(SELECT uid FROM evicted) AS evicted, (SELECT count(*) FROM announced) AS "announcements",
              CASE WHEN guest.bounded AND NOT EXISTS (SELECT 1 FROM allowed)
                THEN ceil(extract(epoch FROM guest."windowStart" + make_interval(secs => ${p.guestWindow}::int) - now()))::int END AS "guestRetryAfter"
       FROM guest LEFT JOIN account a ON true LEFT JOIN s ON true`,
  );
}

/**
 * The SQL of sign-in sessions (not the lobbies of sessions/) and their refresh tokens (stored as hashes; a token is spent once used).
 * Revocations are announced on the `revocations` channel in the transaction that makes them, so every
 * instance hears of them when, and only if, they commit.
 */
@Injectable()
export class SignInSessionsRepository {
  private readonly prepared: boolean;
  private readonly signingIn: Statement<SignInParameters, SignInRow>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly fanout: Fanout,
    @InjectConfig() config: AppConfig,
  ) {
    this.prepared = config.preparedStatements;
    this.signingIn = signInStatement(fanout);
  }

  /**
   * A whole sign-in in one statement, the commonest write there is (a game opens with it): the
   * identity's account, found and share-locked against a ban being written (or, when `create`, its
   * registration: identity, user, default persona), the session with its first refresh token, the
   * eviction of the user's sessions past MAX_SESSIONS_PER_USER and its announcement, and the audit
   * entry, of a refusal too. One statement is one round trip and its own transaction, where the same
   * steps as statements in a transaction took five (docs/PERFORMANCE.md). `unknown`: no account has the identity, or, when
   * `create`, a concurrent first sign-in is registering it and has committed by now (sign in again).
   */
  async signIn(request: SignInRequest): Promise<SignInOutcome> {
    const { identity, newAccount } = request;
    const { token, hash } = newSecretToken();
    const [row] = await runStatement(
      this.dataSource,
      this.signingIn,
      {
        provider: identity.provider,
        subject: identity.subject,
        create: request.create,
        newUserUid: newAccount.userUid,
        // A device's subject is the hash of a secret: the account's origin names only its provider.
        originSubject: identity.provider === 'device' ? null : identity.subject,
        name: identity.name ?? null,
        email: identity.email ?? null,
        personaName: newAccount.personaName,
        address: request.address,
        userAgent: request.userAgent,
        ttlSeconds: request.ttlSeconds,
        hash,
        guestAddress: request.guests.address,
        guestLimit: request.guests.limit,
        guestWindow: request.guests.windowSeconds,
      },
      this.prepared,
    );
    if (row.guestRetryAfter !== null) return { kind: 'guest-limit', retryAfterSeconds: Math.max(1, row.guestRetryAfter) };
    const { uid, userUid, evicted } = row;
    if (userUid === null) return { kind: 'unknown' };
    if (uid === null) return { kind: 'banned', userUid, bannedUntil: row.bannedUntil };
    if (evicted.length > 0 && this.fanout.viaRedis) {
      const revocation: Revocation = { userUid, sessionUids: evicted, reason: 'session-limit' };
      this.fanout.publishAfterCommit(this.dataSource.manager, REVOCATIONS_CHANNEL, JSON.stringify(revocation));
    }
    const { provider, identityUid, address, userAgent, dateCreated, lastRefreshedAt, expiresAt, revokedAt } = row;
    const session = { uid, userUid, provider, identityUid, address, userAgent, dateCreated, lastRefreshedAt, expiresAt, revokedAt };
    return { kind: 'opened', userUid, created: row.created, session, refreshToken: token, evicted };
  }

  transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    return transact(this.dataSource, work);
  }

  /**
   * The session of a refresh token, locked with the token (so concurrent refreshes of one session take
   * turns and each sees what the one before did), or undefined for a token never issued.
   */
  async lockByRefreshToken(transaction: Transaction, hash: string, reuseGraceMs: number): Promise<PresentedRefreshToken | undefined> {
    const [row] = await runStatement(transaction, LOCK_BY_REFRESH_TOKEN, { hash, reuseGraceMs }, this.prepared);
    if (!row) return undefined;
    const { spent, spentRecently, expired, banned, bannedUntil, subject, identityProvider } = row;
    const session: SignInSessionRow = {
      uid: row.uid,
      userUid: row.userUid,
      provider: row.provider,
      identityUid: row.identityUid,
      address: row.address,
      userAgent: row.userAgent,
      dateCreated: row.dateCreated,
      lastRefreshedAt: row.lastRefreshedAt,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
    };
    return { session, provider: identityProvider, subject, spent, spentRecently: spentRecently === true, expired, banned, bannedUntil };
  }

  /** Spends a refresh token and issues the session's next one; the session lives `ttlSeconds` from now. */
  async rotate(
    transaction: Transaction,
    sessionUid: string,
    spentHash: string,
    ttlSeconds: number,
  ): Promise<{ session: SignInSessionRow; refreshToken: string }> {
    const { token, hash } = newSecretToken();
    const [session] = await runStatement(transaction, ROTATE, { spentHash, hash, sessionUid, ttlSeconds }, this.prepared);
    return { session, refreshToken: token };
  }

  /** Revokes one session (unless it was already); answers whose it was, if this revoked it. */
  async revoke(transaction: Transaction, sessionUid: string, reason: string): Promise<string | undefined> {
    const [row] = await runStatement(transaction, REVOKE, { sessionUid, reason });
    return row?.userUid;
  }

  /** Revokes every session of the user still standing; answers their ids. */
  async revokeAllOf(transaction: Transaction, userUid: string, reason: string): Promise<string[]> {
    const rows = await runStatement(transaction, REVOKE_ALL_OF, { userUid, reason });
    return rows.map(({ uid }) => uid);
  }

  /** Revokes the sessions these identities opened that still stand; answers their ids. */
  async revokeOpenedBy(transaction: Transaction, identityUids: string[], reason: string): Promise<string[]> {
    const rows = await runStatement(transaction, REVOKE_OPENED_BY, { identityUids, reason });
    return rows.map(({ uid }) => uid);
  }

  /** Tells every instance (this one included) of a revocation, when the transaction commits. */
  announce(transaction: Transaction, revocation: Revocation): Promise<void> {
    return this.fanout.announce(transaction, REVOCATIONS_CHANNEL, JSON.stringify(revocation));
  }

  /** The active sessions of these users, newest first. */
  active(userUids: string[]): Promise<SignInSessionRow[]> {
    return runStatement(this.dataSource, ACTIVE, { userUids });
  }

  /** Whose session this is (undefined: no such session). */
  async ownerOf(sessionUid: string): Promise<string | undefined> {
    const [row] = await runStatement(this.dataSource, OWNER_OF, { sessionUid });
    return row?.userUid;
  }

  /** Revocations made in the last `seconds`. */
  async recentRevocations(seconds: number): Promise<RecentRevocations> {
    const [sessions, users] = await Promise.all([
      runStatement(this.dataSource, REVOKED_SESSIONS, { seconds }),
      runStatement(this.dataSource, WITHDRAWN_TOKENS, { seconds }),
    ]);
    return { sessions, users };
  }

  /**
   * Whether a token of this session issued at `issuedAt` no longer counts, asked of the database (while
   * an instance cannot be sure its in-memory list is current). A session that does not exist counts as
   * revoked: our tokens only name sessions we opened.
   */
  async isRevoked(userUid: string, sessionUid: string, issuedAt: Date): Promise<boolean> {
    const [row] = await runStatement(this.dataSource, IS_REVOKED, { userUid, sessionUid, issuedAt });
    return row.revoked;
  }

  /**
   * Forgets sessions ended (expired or revoked) more than `endedSeconds` ago, with their refresh tokens,
   * and refresh tokens spent more than `spentSeconds` ago (a replay of one is then an unknown token).
   */
  async prune(endedSeconds: number, spentSeconds: number): Promise<void> {
    await runStatement(this.dataSource, PRUNE_SESSIONS, { endedSeconds });
    await runStatement(this.dataSource, PRUNE_SPENT_TOKENS, { spentSeconds });
  }
}
