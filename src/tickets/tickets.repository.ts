import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { ALIAS, claimOldest, column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import { ticketChange } from './dto/ticket-change.dto.js';
import type { QueuedTicket } from './ticket-rules.js';
import { Ticket, type TicketEndReason } from './ticket.entity.js';

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
  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, Ticket, 'ticket');
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
    await transaction.query(`SELECT uid FROM users WHERE uid = ANY($1::uuid[]) ORDER BY uid FOR NO KEY UPDATE`, [users]);
  }

  /** The queued (SEARCHING or INITIALIZING, unexpired) tickets that name any of `users`, but `except`. */
  async queuedOn(transaction: Transaction, users: string[], except?: string): Promise<QueuedTicket[]> {
    return transaction.query<QueuedTicket[]>(
      `SELECT uid, users FROM tickets
       WHERE users && $1::uuid[] AND status IN ('SEARCHING', 'INITIALIZING') AND "expiresAt" > now() AND uid IS DISTINCT FROM $2
       ORDER BY "dateCreated", uid`,
      [users, except ?? null],
    );
  }

  /**
   * Whether this transaction may run a matchmaking pass: one pass at a time, whichever instance runs
   * it, so that a pass sees the whole queue (passes splitting it between instances match worse). The
   * lock ends with the transaction.
   */
  async takePassLock(transaction: Transaction): Promise<boolean> {
    const [{ taken }] = await transaction.query<Array<{ taken: boolean }>>('SELECT pg_try_advisory_xact_lock($1) AS taken', [PASS_LOCK]);
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
    // An UPDATE through query() answers [rows, count].
    const [rows] = await transaction.query<[Ticket[], number]>(
      `UPDATE tickets t SET status = 'MATCH_FOUND', "sessionUid" = p.session, reason = NULL,
              version = t.version + 1, "dateModified" = now()
       FROM unnest($1::uuid[], $2::uuid[]) AS p(ticket, session)
       WHERE t.uid = p.ticket
       RETURNING t.*`,
      [placements.map((placement) => placement.ticketUid), placements.map((placement) => placement.sessionUid)],
    );
    return this.reportEnded(transaction, rows);
  }

  /**
   * Expired tickets leave the queue: INVALID, reason EXPIRED, at most `limit` a call. Tickets locked
   * by a client or another instance are left for the next sweep; the claim never takes expired ones.
   */
  async expireDue(transaction: Transaction, limit: number): Promise<Ticket[]> {
    return this.end(
      transaction,
      'EXPIRED',
      `SELECT uid FROM tickets WHERE status IN ('SEARCHING', 'INITIALIZING') AND "expiresAt" <= now()
       ORDER BY "expiresAt" LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  /**
   * The users just matched leave every other queue they were on (INVALID, reason MATCHED_ELSEWHERE):
   * nobody is seated in two sessions at once. These waits for tickets another pass holds: two passes
   * that each matched one of a user's tickets deadlock, and one is retried without the other's.
   */
  async endQueuedElsewhere(transaction: Transaction, users: string[], matched: string[]): Promise<Ticket[]> {
    if (users.length === 0) return [];
    return this.end(
      transaction,
      'MATCHED_ELSEWHERE',
      `SELECT uid FROM tickets WHERE users && $2::uuid[] AND status IN ('SEARCHING', 'INITIALIZING') AND uid <> ALL($3::uuid[])
       ORDER BY uid FOR UPDATE`,
      [users, matched],
    );
  }

  /** SEARCHING tickets that have not expired, by shape. */
  queueDepth(): Promise<QueueFigures['searching']> {
    return this.dataSource.query<QueueFigures['searching']>(
      `SELECT "numTeams", "teamSize", count(*)::int AS tickets FROM tickets
       WHERE status = 'SEARCHING' AND "expiresAt" > now() GROUP BY 1, 2 ORDER BY 1, 2`,
    );
  }

  /** The queue's depth by shape, and how long recently matched tickets waited (the last `windowSeconds`). */
  async figures(windowSeconds: number): Promise<QueueFigures> {
    const [searching, [matched]] = await Promise.all([
      this.queueDepth(),
      this.dataSource.query<Array<Omit<QueueFigures, 'searching'>>>(
        `SELECT count(*)::int AS matched, count(DISTINCT "sessionUid")::int AS sessions,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM "dateModified" - "dateCreated")) AS "medianWaitSeconds",
                percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM "dateModified" - "dateCreated")) AS "p95WaitSeconds"
         FROM tickets WHERE status = 'MATCH_FOUND' AND "dateModified" > now() - make_interval(secs => $1)`,
        [windowSeconds],
      ),
    ]);
    return { searching, ...matched };
  }

  /** Sets the tickets `selection` picks (locked by it) INVALID with `reason`, and tells their people. */
  private async end(transaction: Transaction, reason: TicketEndReason, selection: string, parameters: unknown[]): Promise<Ticket[]> {
    const [rows] = await transaction.query<[Ticket[], number]>(
      `UPDATE tickets SET status = 'INVALID', reason = $1, version = version + 1, "dateModified" = now()
       WHERE uid IN (${selection})
       RETURNING *`,
      [reason, ...parameters],
    );
    return this.reportEnded(transaction, rows);
  }

  private async reportEnded(transaction: Transaction, rows: Ticket[]): Promise<Ticket[]> {
    const tickets = rows.map((row) => transaction.create(Ticket, row));
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
