import { Injectable } from '@nestjs/common';
import { DataSource, type QueryDeepPartialEntity, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { ALIAS, claimOldest, column, RecordRepository, type Transaction } from '../database/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import type { SessionRemoval } from './dto/session-events.dto.js';
import { briefOf, describeChange, newlyInvited } from './session-events.js';
import { Session } from './session.entity.js';
import { statement } from '../database/statement.js';

@Injectable()
export class SessionsRepository extends RecordRepository<Session> {
  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, Session, 'session');
  }

  /**
   * The sessions this transaction holds locked, as they stand: an update reports what changed since.
   * Every session write decides on the locked row (join, leave, update, backfill, the sweep), so an
   * update without one is a bug, and fails loudly rather than report a change it cannot describe.
   */
  private readonly locked = new WeakMap<Transaction, Map<string, Session>>();

  private remember(transaction: Transaction, sessions: Session[]): Session[] {
    let held = this.locked.get(transaction);
    if (!held) this.locked.set(transaction, (held = new Map<string, Session>()));
    for (const session of sessions) held.set(session.uid, session);
    return sessions;
  }

  override async lockOne(transaction: Transaction, uid: string, caller: Caller | undefined): Promise<Session> {
    return this.remember(transaction, [await super.lockOne(transaction, uid, caller)])[0];
  }

  /**
   * A write is told, in brief, to the host, the members and those who just left (never the whole
   * session: docs/REALTIME.md); users it newly invited get one small invitation. A write thus reaches
   * at most the session's capacity, and those it invites.
   */
  protected override async afterUpdate(transaction: Transaction, session: Session): Promise<void> {
    const before = this.locked.get(transaction)?.get(session.uid);
    if (!before) throw new Error(`session ${session.uid} was updated without being locked first`);
    this.remember(transaction, [session]);
    const change = describeChange(before, session);
    await this.outbox.record(transaction, 'session.updated', change, {
      users: [...new Set([session.hostUid, ...session.users, ...change.left])],
    });
    await this.invite(transaction, session, newlyInvited(before, session));
  }

  protected override async afterInsert(transaction: Transaction, session: Session): Promise<void> {
    await this.invite(transaction, session, session.invited);
  }

  /** Members leave (or are removed): those who stay and those who left are told. */
  removeMembers(transaction: Transaction, uid: string, departure: QueryDeepPartialEntity<Session>): Promise<Session> {
    return this.updateVersioned(uid, departure, undefined, transaction);
  }

  protected override async afterDelete(transaction: Transaction, session: Session): Promise<void> {
    const removal: SessionRemoval = { uid: session.uid, version: session.version };
    await this.outbox.record(transaction, 'session.deleted', removal, { users: [...new Set([session.hostUid, ...session.users])] });
  }

  private async invite(transaction: Transaction, session: Session, users: string[]): Promise<void> {
    if (users.length > 0) await this.outbox.record(transaction, 'session.invited', briefOf(session), { users });
  }

  /** The session for a join's checks, unlocked (the password is checked before the row is locked). */
  findForJoin(uid: string): Promise<Session | null> {
    return this.dataSource
      .createQueryBuilder(Session, ALIAS)
      .where(`${column('uid')} = :uid`, { uid })
      .getOne();
  }

  /** PUBLIC sessions to everyone signed in; the others to their host, members and invited users; all to admins. */
  protected override scope(query: SelectQueryBuilder<Session>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(
      `(${column('visibility')} = 'PUBLIC' OR ${column('hostUid')} = :viewer
        OR ${column('users')} @> ARRAY[:viewer]::uuid[] OR ${column('invited')} @> ARRAY[:viewer]::uuid[])`,
      { viewer: caller?.uid ?? null },
    );
  }

  /**
   * The session, whoever may see it, locked until the transaction ends: joining an INVITE_ONLY or
   * LOCKED session is a 403 (docs/CONTRACT.md section 7), so the join decides on the record, not on scope.
   */
  async lockForJoin(transaction: Transaction, uid: string): Promise<Session | null> {
    const session = await transaction
      .createQueryBuilder(Session, ALIAS)
      .where(`${column('uid')} = :uid`, { uid })
      .setLock('pessimistic_write')
      .getOne();
    return session && this.remember(transaction, [session])[0];
  }

  /**
   * Sessions that asked for backfill and have open seats (WAITING_FOR_PLAYERS or IN_PROGRESS) of the
   * given shapes, oldest first, locked like a join locks them: a join and a backfill take turns for
   * the last seat. `SKIP LOCKED`: a session being joined right now waits for the next pass.
   */
  async lockOpenForBackfill(
    transaction: Transaction,
    shapes: Array<{ numTeams: number; teamSize: number }>,
    limit: number,
  ): Promise<Session[]> {
    if (shapes.length === 0) return [];
    const sessions = await claimOldest(
      transaction
        .createQueryBuilder(Session, ALIAS)
        .where(`${column('backfill')} AND ${column('status')} IN ('WAITING_FOR_PLAYERS', 'IN_PROGRESS')`)
        .andWhere(`cardinality(${column('users')}) < ${column('numTeams')} * ${column('teamSize')}`)
        .andWhere(`(${column('numTeams')}, ${column('teamSize')}) IN (SELECT * FROM unnest(:numTeams::int[], :teamSizes::int[]))`, {
          numTeams: shapes.map((shape) => shape.numTeams),
          teamSizes: shapes.map((shape) => shape.teamSize),
        }),
      limit,
    );
    return this.remember(transaction, sessions);
  }

  /** Inserts the sessions of a matchmaking pass, a few hundred to a statement (PostgreSQL takes at most 65,535 parameters). */
  async insertMany(transaction: Transaction, sessions: Array<QueryDeepPartialEntity<Session>>): Promise<void> {
    for (let start = 0; start < sessions.length; start += 500) {
      await transaction
        .createQueryBuilder()
        .insert()
        .into(Session)
        .values(sessions.slice(start, start + 500))
        .execute();
    }
  }

  /** The member is still there (POST /sessions/{id}/heartbeat); false when they are not a member (any more). */
  async heartbeat(sessionUid: string, userUid: string): Promise<boolean> {
    const touched = await this.run(undefined, HEARTBEAT, { sessionUid, userUid });
    return touched.length > 0;
  }

  /** Users with an open realtime socket are present in every session they are in. */
  async touchPresence(users: string[]): Promise<void> {
    if (users.length === 0) return;
    await this.run(undefined, TOUCH_PRESENCE, { users });
  }

  /**
   * Removes up to `limit` sessions that ENDED more than `retentionSeconds` ago (their presence rows go
   * with them; matched tickets keep a null sessionUid), without events: their people were told when
   * they ended. Sessions another transaction holds are left for the next batch.
   */
  async deleteEndedBefore(retentionSeconds: number, limit: number): Promise<number> {
    const deleted = await this.run(undefined, DELETE_ENDED, { retentionSeconds, limit });
    this.changed();
    return deleted.length;
  }

  /**
   * Sessions (not ENDED) with members silent for `timeoutSeconds`, oldest first, locked: `SKIP LOCKED`,
   * so that sweeps of several instances share the work, and a session being joined is swept next time.
   */
  async lockWithSilentMembers(transaction: Transaction, timeoutSeconds: number, limit: number): Promise<SilentMembers[]> {
    const sessions = await claimOldest(
      transaction
        .createQueryBuilder(Session, ALIAS)
        .where(`${column('uid')} IN (SELECT "sessionUid" FROM session_presence WHERE "seenAt" < now() - make_interval(secs => :timeout))`, {
          timeout: timeoutSeconds,
        })
        .andWhere(`${column('status')} <> 'ENDED'`),
      limit,
    );
    if (sessions.length === 0) return [];
    this.remember(transaction, sessions);
    const rows = await this.run(transaction, SILENT_MEMBERS, { sessionUids: sessions.map((session) => session.uid), timeoutSeconds });
    return sessions.map((session) => ({
      session,
      silent: rows.filter((row) => row.sessionUid === session.uid).map((row) => row.userUid),
    }));
  }
}

/** A session with members silent for too long, locked, and who they are. */
export interface SilentMembers {
  session: Session;
  silent: string[];
}

const HEARTBEAT = statement<{ sessionUid: string; userUid: string }>(
  'session_heartbeat',
  (p) => `UPDATE session_presence SET "seenAt" = now() WHERE "sessionUid" = ${p.sessionUid} AND "userUid" = ${p.userUid} RETURNING 1`,
);

const TOUCH_PRESENCE = statement<{ users: string[] }>(
  'touch_session_presence',
  (p) => `UPDATE session_presence SET "seenAt" = now() WHERE "userUid" = ANY(${p.users}::uuid[])`,
);

const DELETE_ENDED = statement<{ retentionSeconds: number; limit: number }>(
  'delete_ended_sessions',
  (p) => `DELETE FROM sessions WHERE uid IN (
         SELECT uid FROM sessions WHERE status = 'ENDED' AND "dateModified" < now() - make_interval(secs => ${p.retentionSeconds})
         ORDER BY "dateModified" LIMIT ${p.limit} FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
);

const SILENT_MEMBERS = statement<{ sessionUids: string[]; timeoutSeconds: number }, { sessionUid: string; userUid: string }>(
  'silent_session_members',
  (p) => `SELECT "sessionUid", "userUid" FROM session_presence
       WHERE "sessionUid" = ANY(${p.sessionUids}::uuid[]) AND "seenAt" < now() - make_interval(secs => ${p.timeoutSeconds})`,
);
