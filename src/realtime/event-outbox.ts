import { Global, Injectable, Module } from '@nestjs/common';
import type { Transaction } from '../common/record.repository.js';
import { Fanout } from '../database/fanout.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { type EventType, MAX_NOTIFIED_USERS, REALTIME_CHANNEL } from './events.js';

/** Who receives an event: users by uid, and the owners of personas by persona uid. */
export interface Recipients {
  users?: readonly string[];
  ownersOf?: readonly string[];
}

/**
 * Writes events into the recipients' inbox, in the transaction of the change they report, so that an
 * event exists if and only if its change committed. One statement: it resolves persona owners, keeps
 * the recipients that are users (a session may invite any uid), inserts a row per recipient and
 * NOTIFYs their uids (never the payload), which PostgreSQL delivers at commit; with Redis the same
 * list is published once the transaction commits (Fanout). Repositories call it where they write;
 * services never do.
 */
@Injectable()
export class EventOutbox {
  constructor(
    private readonly metrics: MetricsService,
    private readonly fanout: Fanout,
  ) {}

  async record(transaction: Transaction, type: EventType, data: unknown, recipients: Recipients): Promise<void> {
    const rows = await transaction.query<Array<{ written: number; wake: string }>>(
      `WITH recipients AS (
         SELECT uid FROM users WHERE uid = ANY($1::uuid[])
         UNION
         SELECT "userUid" FROM personas WHERE uid = ANY($2::uuid[])
       ), written AS (
         INSERT INTO notifications ("userUid", type, data)
         SELECT uid, $3, $4::jsonb FROM recipients
         RETURNING "userUid"
       )
       SELECT written, wake, CASE WHEN $7 THEN pg_notify($5, wake) END FROM (
         SELECT count(*)::int AS written, CASE WHEN count(*) > $6 THEN '*' ELSE string_agg("userUid"::text, ',') END AS wake
         FROM written HAVING count(*) > 0
       ) AS events`,
      [
        recipients.users ?? [],
        recipients.ownersOf ?? [],
        type,
        JSON.stringify(data),
        REALTIME_CHANNEL,
        MAX_NOTIFIED_USERS,
        !this.fanout.viaRedis,
      ],
    );
    this.written(transaction, type, rows[0]);
  }

  /**
   * Many events of one type, each to its own users, in one statement: what a matchmaking pass or an
   * expiry sweep reports about thousands of tickets at once (one round trip, not one per ticket).
   */
  async recordMany(
    transaction: Transaction,
    type: EventType,
    events: ReadonlyArray<{ data: unknown; users: readonly string[] }>,
  ): Promise<void> {
    const indexes: number[] = [];
    const users: string[] = [];
    events.forEach((event, index) =>
      event.users.forEach((user) => {
        indexes.push(index);
        users.push(user);
      }),
    );
    if (users.length === 0) return;
    const rows = await transaction.query<Array<{ written: number; wake: string }>>(
      `WITH recipients AS (
         SELECT DISTINCT r.idx, r.member FROM unnest($1::int[], $2::uuid[]) AS r(idx, member) JOIN users u ON u.uid = r.member
       ), written AS (
         INSERT INTO notifications ("userUid", type, data)
         SELECT r.member, $3, ($4::jsonb) -> r.idx FROM recipients r ORDER BY r.idx
         RETURNING "userUid"
       )
       SELECT written, wake, CASE WHEN $7 THEN pg_notify($5, wake) END FROM (
         SELECT count(*)::int AS written,
                CASE WHEN count(DISTINCT "userUid") > $6 THEN '*' ELSE string_agg(DISTINCT "userUid"::text, ',') END AS wake
         FROM written HAVING count(*) > 0
       ) AS events`,
      [
        indexes,
        users,
        type,
        JSON.stringify(events.map((event) => event.data)),
        REALTIME_CHANNEL,
        MAX_NOTIFIED_USERS,
        !this.fanout.viaRedis,
      ],
    );
    this.written(transaction, type, rows[0]);
  }

  /** Counts what was written and, over Redis, wakes the recipients' instances once it commits. */
  private written(transaction: Transaction, type: EventType, row: { written: number; wake: string } | undefined): void {
    this.metrics.countEventsWritten(type, row?.written ?? 0);
    if (row && this.fanout.viaRedis) this.fanout.publishAfterCommit(transaction, REALTIME_CHANNEL, row.wake);
  }
}

/** The outbox, for every repository that reports its changes. */
@Global()
@Module({ providers: [EventOutbox], exports: [EventOutbox] })
export class OutboxModule {}
