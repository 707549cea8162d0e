import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { hashSecretToken, newSecretToken } from '../common/secret-token.js';
import { storedOrTextSize } from '../database/record.repository.js';
import { runStatement, statement } from '../database/statement.js';
import type { EventType } from './events.js';

/**
 * Where a client is in its inbox: the (transaction id, row id) of the last event it got. Written as
 * `<xid>-<id>`, opaque to clients; it only grows, per user.
 */
export interface Cursor {
  xid: bigint;
  id: bigint;
}

export const CURSOR_PATTERN = /^(\d{1,20})-(\d{1,20})$/;

export function parseCursor(text: string): Cursor | undefined {
  const match = CURSOR_PATTERN.exec(text);
  return match ? { xid: BigInt(match[1]), id: BigInt(match[2]) } : undefined;
}

export const formatCursor = (cursor: Cursor) => `${cursor.xid}-${cursor.id}`;

/** An event as clients receive it: one WebSocket frame, or one element of GET /notifications. */
export interface EventFrame {
  id: string;
  type: EventType;
  /** When the event was written (ISO 8601, milliseconds). */
  at: string;
  data: unknown;
}

/** A page of a user's inbox: the events ready to deliver, and whether more are (or will soon be) there. */
export interface InboxPage {
  events: EventFrame[];
  /** The page was full: read on from its last event. */
  full: boolean;
  /**
   * Events after these exist but are not deliverable yet, an older transaction still running: the xid
   * of the first of them (they are, once every transaction older than it has ended).
   */
  heldBy: bigint | undefined;
}

interface InboxRow {
  id: string;
  xid: string;
  type: EventType;
  data: unknown;
  dateCreated: Date;
  ready: boolean;
}

const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** One user's rows of a read, in order: the events ready to deliver, and whether to read on. */
function pageOf(rows: InboxRow[], limit: number, cut: boolean): InboxPage {
  const ready = rows.filter((row) => row.ready);
  const held = rows.find((row) => !row.ready);
  return {
    events: ready.map((row) => ({
      id: formatCursor({ xid: BigInt(row.xid), id: BigInt(row.id) }),
      type: row.type,
      at: row.dateCreated.toISOString(),
      data: row.data,
    })),
    full: ready.length === rows.length && (cut || ready.length === limit),
    heldBy: held && BigInt(held.xid),
  };
}

/**
 * The realtime inbox (EventOutbox writes it). Events are delivered in (xid, id) order, and only once
 * every transaction older than theirs has ended (`xid` below the snapshot's xmin): row ids are handed
 * out when rows are written, not when they commit, so an id order would let a transaction that commits
 * late slip in behind a cursor a client already holds, and its event would never reach that client.
 */
@Injectable()
export class NotificationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Up to `limit` of the user's events after `after`, in order, and no more than `maxBytes` of them (always the first). */
  async after(userUid: string, after: Cursor, limit: number, maxBytes: number): Promise<InboxPage> {
    const [page] = await this.pagesAfter([{ userUid, after }], limit, maxBytes);
    return page;
  }

  /**
   * The inboxes of several users, each from its own cursor, in one statement: what the realtime hub
   * reads for all the users woken in one turn. Up to `limit` events per user, in order, and no more
   * than `maxBytes` in all, the users taken in the order given (always the first event read): the rows
   * past the budget are never read out of PostgreSQL. A page per user, in the order given; a user the
   * budget left out gets an empty page marked `full`, to read on from the same cursor.
   */
  async pagesAfter(reads: ReadonlyArray<{ userUid: string; after: Cursor }>, limit: number, maxBytes: number): Promise<InboxPage[]> {
    const rows = await runStatement(this.dataSource, INBOXES_AFTER, {
      users: reads.map((read) => read.userUid),
      xids: reads.map((read) => read.after.xid.toString()),
      ids: reads.map((read) => read.after.id.toString()),
      limit,
      maxBytes,
    });
    // The row that ends past the budget is left for the next read, unless it is the first; the user it
    // belongs to reads on from there, and so do those after it, whom the statement did not reach.
    const cut = rows.at(-1)?.past === true;
    const cutAt = cut ? rows.at(-1)!.n : reads.length + 1;
    if (cut && rows.length > 1) rows.pop();
    const byUser = new Map<number, InboxRow[]>();
    for (const row of rows) {
      const own = byUser.get(row.n);
      if (own) own.push(row);
      else byUser.set(row.n, [row]);
    }
    return reads.map((_, index) => {
      const n = index + 1;
      if (n > cutAt) return { events: [], full: true, heldBy: undefined };
      return pageOf(byUser.get(n) ?? [], limit, n === cutAt);
    });
  }

  /**
   * The cursor of "from now on": past every event of a transaction that has ended, before every event
   * of one still running or to come. A socket opened without `?after` starts here.
   */
  async now(): Promise<Cursor> {
    return { xid: (await this.xmin()) - 1n, id: MAX_BIGINT };
  }

  /** The oldest transaction still running (or the next to start): every one with a lower xid has ended. */
  async xmin(): Promise<bigint> {
    const [{ xmin }] = await runStatement(this.dataSource, SNAPSHOT_XMIN, {});
    return BigInt(xmin);
  }

  /**
   * Which of `users` have events after `after` (ready or not), and the cursor to ask from next time:
   * what a poll needs when wake-ups may have been lost (Redis). Every event of a transaction that had
   * ended by now is before the new cursor; every later one after it.
   */
  async usersWithEventsAfter(users: string[], after: Cursor): Promise<{ users: string[]; next: Cursor }> {
    const [row] = await runStatement(this.dataSource, USERS_WITH_EVENTS_AFTER, {
      users,
      xid: after.xid.toString(),
      id: after.id.toString(),
    });
    return { users: row.users ?? [], next: { xid: BigInt(row.xmin) - 1n, id: MAX_BIGINT } };
  }

  /**
   * Keeps each of `users`' inboxes to its newest `max` events, dropping the oldest; answers how many
   * went. One statement for many users: it walks each inbox's newest `max` entries on the cursor index.
   */
  async trim(users: string[], max: number): Promise<number> {
    const [{ dropped }] = await runStatement(this.dataSource, TRIM, { users, max });
    return dropped;
  }

  /**
   * Removes events older than the retention, and tickets past their time; answers how many events went
   * (undefined: another instance is pruning). One transaction under a transaction-scoped advisory lock:
   * the prune is needed once, not by every instance, and a lock held by a session would not survive a
   * transaction-pooling PgBouncer between statements.
   */
  prune(lock: number, retentionSeconds: number): Promise<number | undefined> {
    return this.dataSource.transaction(async (transaction) => {
      const [{ locked }] = await runStatement(transaction, TRY_LOCK, { lock });
      if (!locked) return undefined;
      const [{ pruned }] = await runStatement(transaction, PRUNE, { retentionSeconds });
      return pruned;
    });
  }
}

/** A ticket's owner, as the socket it opens will be. */
export interface TicketHolder {
  userUid: string;
  roles: string[];
  /** The player session of the token the ticket was made from: revoking it closes the socket. */
  sessionUid: string;
  /** When that token was issued. */
  tokenIssuedAt: Date;
  /** When the token the ticket was made from expires: the socket closes then. */
  tokenExpiresAt: Date;
}

/** How long a ticket may wait to be used. */
export const TICKET_TTL_SECONDS = 30;

/** The columns of realtime_tickets that make a TicketHolder. */
const HOLDER_COLUMNS = '"userUid", roles, "sessionUid", "tokenIssuedAt", "tokenExpiresAt"';

/**
 * Single-use tickets with which a browser opens a socket (it cannot set headers, and a long-lived
 * token must not sit in a URL or a log). Stored as a hash, in PostgreSQL, so that any instance can
 * take a ticket another one issued; taking it deletes it. Expired ones are left to the janitor (prune).
 */
@Injectable()
export class RealtimeTicketsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async issue(holder: TicketHolder): Promise<{ ticket: string; expiresAt: Date }> {
    const { token: ticket, hash } = newSecretToken();
    const [{ expiresAt }] = await runStatement(this.dataSource, ISSUE_TICKET, { ...holder, hash, ttlSeconds: TICKET_TTL_SECONDS });
    return { ticket, expiresAt };
  }

  /**
   * The holder of a ticket that is there and unexpired, without using it up: a read, so that made-up
   * tickets cost no write however many arrive.
   */
  async find(ticket: string): Promise<TicketHolder | undefined> {
    const [holder] = await runStatement(this.dataSource, FIND_TICKET, { hash: hashSecretToken(ticket) });
    return holder;
  }

  /**
   * Uses up a ticket `find` found: its holder, or undefined when another upgrade, on any instance, took
   * it first (of two racing, one deletes the row, the other deletes nothing) or it has just expired.
   */
  async take(ticket: string): Promise<TicketHolder | undefined> {
    const [holder] = await runStatement(this.dataSource, TAKE_TICKET, { hash: hashSecretToken(ticket) });
    return holder;
  }
}

/**
 * Each user's events after their cursor, at most `limit` per user (a LATERAL walk of the cursor index
 * per user), cut to `maxBytes` over all of them in the users' order: every row that starts within the
 * budget, the one that ends past it marked `past`. `n` numbers the users as given, from 1.
 */
const INBOXES_AFTER = statement<
  { users: string[]; xids: string[]; ids: string[]; limit: number; maxBytes: number },
  InboxRow & { n: number; past: boolean }
>(
  'inboxes_after',
  (p) => `SELECT n, id, xid, type, data, "dateCreated", ready, bytes > ${p.maxBytes} AS past FROM (
         SELECT measured.*, sum(measured.size) OVER (ORDER BY measured.n, measured.xid, measured.id ROWS UNBOUNDED PRECEDING) AS bytes
         FROM (
           SELECT w.n::int AS n, e.id, e.xid, e.type, e.data, e."dateCreated", e.xid < h.xmin AS ready, 100 + ${storedOrTextSize('e.data')} AS size
           FROM unnest(${p.users}::uuid[], ${p.xids}::text[], ${p.ids}::bigint[]) WITH ORDINALITY AS w("userUid", xid, id, n)
           CROSS JOIN (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) h
           CROSS JOIN LATERAL (
             SELECT inbox.id, inbox.xid, inbox.type, inbox.data, inbox."dateCreated" FROM notifications inbox
             WHERE inbox."userUid" = w."userUid" AND (inbox.xid, inbox.id) > (w.xid::xid8, w.id)
             ORDER BY inbox.xid, inbox.id
             LIMIT ${p.limit}
           ) AS e
         ) AS measured
       ) AS sized
       WHERE bytes - size <= ${p.maxBytes}
       ORDER BY n, xid, id`,
);

const SNAPSHOT_XMIN = statement<Record<string, never>, { xmin: string }>(
  'snapshot_xmin',
  () => 'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin',
);

const USERS_WITH_EVENTS_AFTER = statement<{ users: string[]; xid: string; id: string }, { users: string[] | null; xmin: string }>(
  'users_with_events_after',
  (p) => `SELECT (SELECT array_agg(DISTINCT "userUid") FROM notifications
               WHERE "userUid" = ANY(${p.users}::uuid[]) AND (xid, id) > (${p.xid}::text::xid8, ${p.id}::bigint)) AS users,
              pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
);

const TRIM = statement<{ users: string[]; max: number }, { dropped: number }>(
  'trim_inboxes',
  (p) => `WITH gone AS (DELETE FROM notifications n USING (
         SELECT w.uid, c.xid, c.id FROM unnest(${p.users}::uuid[]) AS w(uid)
         CROSS JOIN LATERAL (
           SELECT xid, id FROM notifications WHERE "userUid" = w.uid ORDER BY xid DESC, id DESC OFFSET ${p.max} LIMIT 1
         ) AS c
       ) AS cut
       WHERE n."userUid" = cut.uid AND (n.xid, n.id) <= (cut.xid, cut.id)
       RETURNING 1)
       SELECT count(*)::int AS dropped FROM gone`,
);

const TRY_LOCK = statement<{ lock: number }, { locked: boolean }>(
  'try_advisory_lock',
  (p) => `SELECT pg_try_advisory_xact_lock(${p.lock}) AS locked`,
);

const PRUNE = statement<{ retentionSeconds: number }, { pruned: number }>(
  'prune_inbox',
  (p) => `WITH tickets AS (
         DELETE FROM realtime_tickets WHERE "expiresAt" < now()
       ), events AS (
         DELETE FROM notifications WHERE "dateCreated" < now() - make_interval(secs => ${p.retentionSeconds}) RETURNING 1
       )
       SELECT count(*)::int AS pruned FROM events`,
);

const ISSUE_TICKET = statement<TicketHolder & { hash: string; ttlSeconds: number }, { expiresAt: Date }>(
  'issue_realtime_ticket',
  (p) => `INSERT INTO realtime_tickets (hash, "userUid", roles, "sessionUid", "tokenIssuedAt", "tokenExpiresAt", "expiresAt")
       VALUES (${p.hash}, ${p.userUid}, ${p.roles}, ${p.sessionUid}, ${p.tokenIssuedAt}, ${p.tokenExpiresAt}, now() + make_interval(secs => ${p.ttlSeconds}))
       RETURNING "expiresAt"`,
);

const FIND_TICKET = statement<{ hash: string }, TicketHolder>(
  'find_realtime_ticket',
  (p) => `SELECT ${HOLDER_COLUMNS} FROM realtime_tickets WHERE hash = ${p.hash} AND "expiresAt" > now()`,
);

const TAKE_TICKET = statement<{ hash: string }, TicketHolder>(
  'take_realtime_ticket',
  (p) => `DELETE FROM realtime_tickets WHERE hash = ${p.hash} AND "expiresAt" > now() RETURNING ${HOLDER_COLUMNS}`,
);
