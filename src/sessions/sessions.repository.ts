import { Injectable } from '@nestjs/common';
import { DataSource, type QueryDeepPartialEntity, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { ALIAS, claimOldest, column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import { Session } from './session.entity.js';

@Injectable()
export class SessionsRepository extends RecordRepository<Session> {
  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, Session, 'session');
  }

  /** Every change (join, leave, host, status, visibility, roster) is pushed to the host, members and invited users. */
  protected override async afterUpdate(transaction: Transaction, session: Session): Promise<void> {
    await this.outbox.record(transaction, 'session.updated', session, { users: audienceOf(session) });
  }

  /** Members leave (or are removed): the session changes, and those who left are told as well as those who stay. */
  async removeMembers(
    transaction: Transaction,
    uid: string,
    departure: QueryDeepPartialEntity<Session>,
    leaving: string[],
  ): Promise<Session> {
    const session = await this.updateVersioned(uid, departure, undefined, transaction);
    await this.outbox.record(transaction, 'session.updated', session, { users: leaving });
    return session;
  }

  protected override async afterDelete(transaction: Transaction, session: Session): Promise<void> {
    await this.outbox.record(transaction, 'session.deleted', session, { users: audienceOf(session) });
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
    return transaction
      .createQueryBuilder(Session, ALIAS)
      .where(`${column('uid')} = :uid`, { uid })
      .setLock('pessimistic_write')
      .getOne();
  }

  /**
   * Sessions that asked for backfill and have open seats (WAITING_FOR_PLAYERS or IN_PROGRESS) of the
   * given shapes, oldest first, locked like a join locks them: a join and a backfill take turns for
   * the last seat. `SKIP LOCKED`: a session being joined right now waits for the next pass.
   */
  lockOpenForBackfill(transaction: Transaction, shapes: Array<{ numTeams: number; teamSize: number }>, limit: number): Promise<Session[]> {
    if (shapes.length === 0) return Promise.resolve([]);
    return claimOldest(
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
    const [, touched] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE session_presence SET "seenAt" = now() WHERE "sessionUid" = $1 AND "userUid" = $2`,
      [sessionUid, userUid],
    );
    return touched > 0;
  }

  /** Users with an open realtime socket are present in every session they are in. */
  async touchPresence(users: string[]): Promise<void> {
    if (users.length === 0) return;
    await this.dataSource.query(`UPDATE session_presence SET "seenAt" = now() WHERE "userUid" = ANY($1::uuid[])`, [users]);
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
    const rows = await transaction.query<Array<{ sessionUid: string; userUid: string }>>(
      `SELECT "sessionUid", "userUid" FROM session_presence
       WHERE "sessionUid" = ANY($1::uuid[]) AND "seenAt" < now() - make_interval(secs => $2)`,
      [sessions.map((session) => session.uid), timeoutSeconds],
    );
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

/** Who follows a session: its host, members and invited users. */
const audienceOf = (session: Session) => [session.hostUid, ...session.users, ...session.invited];
