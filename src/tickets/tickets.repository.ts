import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { ALIAS, claimOldest, column, RecordRepository, type Transaction } from '../database/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import { ticketChange } from './dto/ticket-change.dto.js';
import type { QueuedTicket } from './ticket-rules.js';
import { Ticket, type TicketEndReason } from './ticket.entity.js';
import { type Statement, statement } from '../database/statement.js';

// The matchmaking pass's advisory lock: any fixed number.
const PASS_LOCK = 0x6d617463;

/** A ticket placed by the matchmaker: into a new session, or into open seats of one that wanted backfill. */
export interface Placement {
  ticketUid: string;
  sessionUid: string;
}

/** The queue at a glance (GET /tickets/stats). */
export interface QueueFigures {
  searching: Array<{ numTeams: number; teamSize: number; tickets: number }>;
  matched: number;
  sessions: number;
  medianWaitSeconds: number | null;
  p95WaitSeconds: number | null;
}

@Injectable()
export class TicketsRepository extends RecordRepository<Ticket> {
  private readonly matching: Statement<{ tickets: string[]; sessions: string[] }>;
  private readonly expiring: Statement<{ limit: number }>;
  private readonly endingElsewhere: Statement<{ users: string[]; matched: string[] }>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, Ticket, 'ticket');
    this.matching = statement(
      'mark_tickets_matched',
      (p) => `UPDATE tickets t SET status = 'MATCH_FOUND', "sessionUid" = m.session, reason = NULL,
              version = t.version + 1, "dateModified" = now()
       FROM unnest(${p.tickets}::uuid[], ${p.sessions}::uuid[]) AS m(ticket, session)
       WHERE t.uid = m.ticket
       RETURNING ${this.returning}`,
    );
    this.expiring = statement('expire_tickets', (p) =>
      ended(
        'EXPIRED',
        `SELECT uid FROM tickets WHERE status IN ('SEARCHING', 'INITIALIZING') AND "expiresAt" <= now()
         ORDER BY "expiresAt" LIMIT ${p.limit} FOR UPDATE SKIP LOCKED`,
        this.returning,
      ),
    );
    this.endingElsewhere = statement('end_tickets_queued_elsewhere', (p) =>
      ended(
        'MATCHED_ELSEWHERE',
        `SELECT uid FROM tickets WHERE users && ${p.users}::uuid[] AND status IN ('SEARCHING', 'INITIALIZING') AND uid <> ALL(${p.matched}::uuid[])
         ORDER BY uid FOR UPDATE`,
        this.returning,
      ),
    );
  }

  /** A ticket's changes (its status above all) are pushed, in brief, to its host and users. */
  protected override async afterUpdate(transaction: Transaction, ticket: Ticket): Promise<void> {
    await this.outbox.record(transaction, 'ticket.updated', ticketChange(ticket), { users: audienceOf(ticket) });
  }

  /** The users a new ticket names besides its host learn of it at once: they are asked to accept. */
  protected override async afterInsert(transaction: Transaction, ticket: Ticket): Promise<void> {
    const invited = ticket.users.filter((user) => user !== ticket.hostUid);
    if (invited.length > 0) await this.outbox.record(transaction, 'ticket.updated', ticketChange(ticket), { users: invited });
  }

  /** A ticket is its host's and its users' (and the admins'). */
  protected override scope(query: SelectQueryBuilder<Ticket>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(`(${column('hostUid')} = :viewer OR ${column('users')} @> ARRAY[:viewer]::uuid[])`, {
      viewer: caller?.uid ?? null,
    });
  }

  /**
   * Locks the users' rows (in uid order, so that two parties never wait on each other) until the
   * transaction ends: queue places are counted under these locks, so of two tickets queueing one user
   * at once the second sees the first. `FOR NO KEY UPDATE` leaves the key-share locks of foreign keys be.
   */
  async lockUsers(transaction: Transaction, users: string[]): Promise<void> {
    await this.run(transaction, LOCK_USERS, { users });
  }

  /** The queued (SEARCHING or INITIALIZING, unexpired) tickets that name any of `users`, but `except`. */
  async queuedOn(transaction: Transaction, users: string[], except?: string): Promise<QueuedTicket[]> {
    return this.run(transaction, QUEUED_ON, { users, except: except ?? null });
  }

  /**
   * Whether this transaction may run a matchmaking pass: one pass at a time, whichever instance runs
   * it, so that a pass sees the whole queue (passes splitting it between instances match worse). The
   * lock ends with the transaction.
   */
  async takePassLock(transaction: Transaction): Promise<boolean> {
    const [{ taken }] = await this.run(transaction, TAKE_PASS_LOCK, { lock: PASS_LOCK });
    return taken;
  }

  /**
   * The oldest SEARCHING tickets that have not expired, locked until the transaction ends. `SKIP
   * LOCKED`: tickets another instance is matching, or a client is updating, are left out of this
   * pass, never matched twice.
   */
  claimSearching(transaction: Transaction, limit: number): Promise<Ticket[]> {
    return claimOldest(
      transaction.createQueryBuilder(Ticket, ALIAS).where(`${column('status')} = 'SEARCHING' AND ${column('expiresAt')} > now()`),
      limit,
    );
  }

  /** The tickets matched into these sessions before: backfill keeps newcomers compatible with them. */
  matchedInto(transaction: Transaction, sessionUids: string[]): Promise<Ticket[]> {
    return transaction
      .createQueryBuilder(Ticket, ALIAS)
      .where(`${column('sessionUid')} = ANY(:sessionUids) AND ${column('status')} = 'MATCH_FOUND'`, { sessionUids })
      .orderBy(column('dateCreated'), 'ASC')
      .addOrderBy(column('uid'), 'ASC')
      .getMany();
  }

  /** The tickets found their sessions: MATCH_FOUND, with the session's uid; each ticket's people are told. */
  async markMatched(transaction: Transaction, placements: Placement[]): Promise<Ticket[]> {
    if (placements.length === 0) return [];
    const rows = await this.run(transaction, this.matching, {
      tickets: placements.map((placement) => placement.ticketUid),
      sessions: placements.map((placement) => placement.sessionUid),
    });
    return this.reportEnded(transaction, rows);
  }

  /**
   * Expired tickets leave the queue: INVALID, reason EXPIRED, at most `limit` a call. Tickets locked
   * by a client or another instance are left for the next sweep; the claim never takes expired ones.
   */
  async expireDue(transaction: Transaction, limit: number): Promise<Ticket[]> {
    return this.reportEnded(transaction, await this.run(transaction, this.expiring, { limit }));
  }

  /**
   * The users just matched leave every other queue they were on (INVALID, reason MATCHED_ELSEWHERE):
   * nobody is seated in two sessions at once. These waits for tickets another pass holds: two passes
   * that each matched one of a user's tickets deadlock, and one is retried without the other's.
   */
  async endQueuedElsewhere(transaction: Transaction, users: string[], matched: string[]): Promise<Ticket[]> {
    if (users.length === 0) return [];
    return this.reportEnded(transaction, await this.run(transaction, this.endingElsewhere, { users, matched }));
  }

  /** SEARCHING tickets that have not expired, by shape. */
  queueDepth(): Promise<QueueFigures['searching']> {
    return this.run(undefined, QUEUE_DEPTH, {});
  }

  /** The queue's depth by shape, and how long recently matched tickets waited (the last `windowSeconds`). */
  async figures(windowSeconds: number): Promise<QueueFigures> {
    const [searching, [matched]] = await Promise.all([this.queueDepth(), this.run(undefined, MATCHED_FIGURES, { windowSeconds })]);
    return { searching, ...matched };
  }

  /** Tells the people of tickets a statement changed (rows it returned with `this.returning`). */
  private async reportEnded(transaction: Transaction, rows: Array<Record<string, unknown>>): Promise<Ticket[]> {
    const tickets = this.recordsOf(rows);
    await this.outbox.recordMany(
      transaction,
      'ticket.updated',
      tickets.map((ticket) => ({ data: ticketChange(ticket), users: audienceOf(ticket) })),
    );
    return tickets;
  }
}

/** Who follows a ticket: its host and its users. */
const audienceOf = (ticket: Ticket) => [...new Set([ticket.hostUid, ...ticket.users])];

/** SQL: the tickets `selection` picks (locked by it) become INVALID with `reason`; returns them. */
const ended = (reason: TicketEndReason, selection: string, returning: string) =>
  `UPDATE tickets SET status = 'INVALID', reason = '${reason}', version = version + 1, "dateModified" = now()
       WHERE uid IN (${selection})
       RETURNING ${returning}`;

const LOCK_USERS = statement<{ users: string[] }>(
  'lock_ticket_users',
  (p) => `SELECT uid FROM users WHERE uid = ANY(${p.users}::uuid[]) ORDER BY uid FOR NO KEY UPDATE`,
);

const QUEUED_ON = statement<{ users: string[]; except: string | null }, QueuedTicket>(
  'tickets_queued_on',
  (p) => `SELECT uid, users FROM tickets
       WHERE users && ${p.users}::uuid[] AND status IN ('SEARCHING', 'INITIALIZING') AND "expiresAt" > now() AND uid IS DISTINCT FROM ${p.except}
       ORDER BY "dateCreated", uid`,
);

const TAKE_PASS_LOCK = statement<{ lock: number }, { taken: boolean }>(
  'take_pass_lock',
  (p) => `SELECT pg_try_advisory_xact_lock(${p.lock}) AS taken`,
);

const QUEUE_DEPTH = statement<Record<string, never>, QueueFigures['searching'][number]>(
  'queue_depth',
  () => `SELECT "numTeams", "teamSize", count(*)::int AS tickets FROM tickets
       WHERE status = 'SEARCHING' AND "expiresAt" > now() GROUP BY 1, 2 ORDER BY 1, 2`,
);

const MATCHED_FIGURES = statement<{ windowSeconds: number }, Omit<QueueFigures, 'searching'>>(
  'matched_ticket_figures',
  (p) => `SELECT count(*)::int AS matched, count(DISTINCT "sessionUid")::int AS sessions,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM "dateModified" - "dateCreated")) AS "medianWaitSeconds",
                percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM "dateModified" - "dateCreated")) AS "p95WaitSeconds"
         FROM tickets WHERE status = 'MATCH_FOUND' AND "dateModified" > now() - make_interval(secs => ${p.windowSeconds})`,
);
