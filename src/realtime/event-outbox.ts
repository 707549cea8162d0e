import { Global, Injectable, Module } from '@nestjs/common';
import type { Transaction } from '../database/record.repository.js';
import { beforeCommit, isTransacting } from '../database/after-commit.js';
import { Fanout } from '../database/fanout.js';
import { type Placeholders, runStatement, statement } from '../database/statement.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { type EventData, type EventType, type Exactly, MAX_NOTIFIED_USERS, REALTIME_CHANNEL } from './events.js';
import { InboxTrimmer } from './inbox-trimmer.js';
import { NotificationsRepository } from './notifications.repository.js';

/** Who receives an event: users by uid, and the owners of personas by persona uid. */
export interface Recipients {
  users?: readonly string[];
  ownersOf?: readonly string[];
}

/** One event waiting to be written: its payload already serialised, as it was when recorded. */
interface PendingEvent {
  type: EventType;
  json: string;
  users: readonly string[];
  ownersOf: readonly string[];
}

/**
 * Writes events into the recipients' inbox, in the transaction of the change they report, so that an
 * event exists if and only if its change committed. The events of a transaction are gathered while it
 * works and written in one statement just before it commits (`beforeCommit`); a statement that
 * settles a change may write its own events in it instead (`writingCtes`). The statement resolves persona
 * owners, keeps the recipients that are users (a session may invite any uid), inserts a row per
 * recipient in the order the events were recorded, and NOTIFYs their uids (never the payload), which
 * PostgreSQL delivers at commit; with Redis the same list is published once the transaction commits
 * (Fanout). Outside a transaction opened by `transact` an event is written at once. Repositories call
 * it where they write; services never do.
 */
@Injectable()
export class EventOutbox {
  private readonly pending = new WeakMap<Transaction, PendingEvent[]>();

  constructor(
    private readonly metrics: MetricsService,
    private readonly fanout: Fanout,
    private readonly inboxes: InboxTrimmer,
  ) {}

  async record<K extends EventType, D extends EventData[K]>(
    transaction: Transaction,
    type: K,
    data: Exactly<EventData[K], D>,
    recipients: Recipients,
  ): Promise<void> {
    await this.add(transaction, [{ type, json: JSON.stringify(data), users: recipients.users ?? [], ownersOf: recipients.ownersOf ?? [] }]);
  }

  /**
   * Many events of one type, each to its own users: what a matchmaking pass or an expiry sweep reports
   * about thousands of tickets at once (one round trip, not one per ticket).
   */
  async recordMany<K extends EventType, D extends EventData[K]>(
    transaction: Transaction,
    type: K,
    events: ReadonlyArray<{ data: Exactly<EventData[K], D>; users: readonly string[] }>,
  ): Promise<void> {
    await this.add(
      transaction,
      events
        .filter((event) => event.users.length > 0)
        .map((event) => ({ type, json: JSON.stringify(event.data), users: event.users, ownersOf: [] })),
    );
  }

  private async add(transaction: Transaction, events: PendingEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (!isTransacting(transaction)) return this.write(transaction, events);
    const pending = this.pending.get(transaction);
    if (pending) {
      pending.push(...events);
      return;
    }
    const gathered = [...events];
    this.pending.set(transaction, gathered);
    beforeCommit(transaction, () => {
      this.pending.delete(transaction);
      return this.write(transaction, gathered);
    });
  }

  private async write(transaction: Transaction, events: PendingEvent[]): Promise<void> {
    const indexes: number[] = [];
    const recipients: string[] = [];
    const persona: boolean[] = [];
    const add = (index: number, uid: string, isPersona: boolean) => {
      indexes.push(index);
      recipients.push(uid);
      persona.push(isPersona);
    };
    events.forEach((event, index) => {
      for (const user of event.users) add(index, user, false);
      for (const owned of event.ownersOf) add(index, owned, true);
    });
    if (recipients.length === 0) return;
    const [row] = await runStatement(transaction, WRITE_EVENTS, {
      indexes,
      recipients,
      persona,
      types: events.map((event) => event.type),
      data: `[${events.map((event) => event.json).join(',')}]`,
      ...this.writingValues(),
    });
    this.written(transaction, row);
  }

  /**
   * The values of the parameters writingCtes() names, to add to those of a statement that writes its
   * own events; hand its `written_events` row to `written`.
   */
  writingValues(): WritingParameters {
    return { channel: REALTIME_CHANNEL, maxNotified: MAX_NOTIFIED_USERS, notify: !this.fanout.viaRedis };
  }

  /**
   * After a statement with writingCtes(): counts its events, over Redis publishes the wake-up once it
   * commits, and has the inboxes that grew kept within their bound.
   */
  written(transaction: Transaction, row: Partial<WrittenEvents> | undefined): void {
    for (const [type, count] of Object.entries(row?.counts ?? {})) this.metrics.countEventsWritten(type, count);
    if (row?.wake && this.fanout.viaRedis) this.fanout.publishAfterCommit(transaction, REALTIME_CHANNEL, row.wake);
    if (row?.recipients) this.inboxes.grew(transaction, row.recipients);
  }
}

/** The parameters of writingCtes(): the NOTIFY channel, the most uids a wake-up names, whether to NOTIFY at all (not over Redis). */
export interface WritingParameters {
  channel: string;
  maxNotified: number;
  notify: boolean;
}

/**
 * The CTEs that write the events of a statement and wake their recipients: they follow two of the
 * statement's own, `events` (idx, type, data jsonb) and `wanted` (idx, uid, persona: whether uid names
 * a persona, whose owner receives it), and end in `written_events` (one row of `WrittenEvents`, none
 * when nothing was written), which the statement must select from. A statement that settles a change
 * writes its events itself this way when only it knows their data (a transaction's record and
 * holdings): a statement of their own was a fifth of a gift's cost (docs/PERFORMANCE.md). Persona
 * owners are resolved and uids that name no user dropped, one row per recipient in the events' order,
 * and the recipients' uids (never the payload) NOTIFYed, which PostgreSQL delivers at commit. Its
 * values come from EventOutbox.writingValues().
 */
export const writingCtes = (p: Placeholders<WritingParameters>) => `, recipients AS (
         SELECT w.idx, u.uid FROM wanted w JOIN users u ON u.uid = w.uid WHERE NOT w.persona
         UNION
         SELECT w.idx, p."userUid" FROM wanted w JOIN personas p ON p.uid = w.uid WHERE w.persona
       ), written AS (
         INSERT INTO notifications ("userUid", type, data)
         SELECT r.uid, e.type, e.data FROM recipients r JOIN events e USING (idx) ORDER BY r.idx
         RETURNING "userUid", type
       ), written_events AS (
         SELECT counts, wake, recipients, CASE WHEN ${p.notify} THEN pg_notify(${p.channel}, wake) END AS notified FROM (
           SELECT (SELECT json_object_agg(type, n) FROM (SELECT type, count(*)::int AS n FROM written GROUP BY type) AS t) AS counts,
                  CASE WHEN count(DISTINCT "userUid") > ${p.maxNotified} THEN '*' ELSE string_agg(DISTINCT "userUid"::text, ',') END AS wake,
                  array_agg(DISTINCT "userUid") AS recipients
           FROM written HAVING count(*) > 0
         ) AS summary
       )`;

/** Events gathered by a transaction, written in one statement just before it commits. */
const WRITE_EVENTS = statement<
  { indexes: number[]; recipients: string[]; persona: boolean[]; types: string[]; data: string } & WritingParameters,
  WrittenEvents
>(
  'write_events',
  (p) => `WITH wanted AS (
         SELECT * FROM unnest(${p.indexes}::int[], ${p.recipients}::uuid[], ${p.persona}::bool[]) AS w(idx, uid, persona)
       ), events AS (
         SELECT (n - 1)::int AS idx, type, (${p.data}::jsonb) -> (n - 1)::int AS data FROM unnest(${p.types}::text[]) WITH ORDINALITY AS e(type, n)
       )${writingCtes(p)}
       SELECT counts, wake, recipients, notified FROM written_events`,
);

/** What `written_events` answers: the events written by type, whom to wake ('*': everyone), and whose inboxes grew. */
export interface WrittenEvents {
  counts: Record<string, number> | null;
  wake: string | null;
  recipients: string[] | null;
}

/** The outbox, for every repository that reports its changes, and the inbox it writes. */
@Global()
@Module({ providers: [EventOutbox, InboxTrimmer, NotificationsRepository], exports: [EventOutbox, NotificationsRepository] })
export class OutboxModule {}
