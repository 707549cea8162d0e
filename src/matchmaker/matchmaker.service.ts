import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import type { Transaction } from '../database/record.repository.js';
import { withRetry } from '../common/retry.js';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { seatParty } from '../sessions/roster.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import type { Ticket } from '../tickets/ticket.entity.js';
import { type Placement, TicketsRepository } from '../tickets/tickets.repository.js';
import { type Backfill, type Match, type OpenSession, planPass } from './matching.js';

/** Open sessions one pass considers for backfill at most. */
const BACKFILL_SESSIONS = 100;

/**
 * The background worker that turns waiting tickets into sessions. Each pass first expires tickets past
 * their `expiresAt`, then, in one transaction, locks the oldest SEARCHING tickets with `FOR UPDATE
 * SKIP LOCKED` (tickets another instance is matching, or a client is updating, are skipped, never
 * matched twice), fills the open seats of sessions that asked for backfill, makes LOCKED sessions of
 * the other matches, and marks every placed ticket MATCH_FOUND with its session's uid. Any number of
 * service instances may run it at once. A pass that found a full batch runs again at once.
 */
@Injectable()
export class MatchmakerService implements OnApplicationBootstrap {
  private readonly logger = new Logger(MatchmakerService.name);
  /** The last pass found a full batch: a backlog, so the next one starts at once. */
  private backlog = false;

  private readonly config: AppConfig['matchmaker'];

  constructor(
    private readonly tickets: TicketsRepository,
    private readonly sessions: SessionsRepository,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.config = config.matchmaker;
    metrics.readQueueDepthFrom(() => tickets.queueDepth());
  }

  onApplicationBootstrap(): void {
    this.jobs.schedule({
      name: 'matchmaker',
      enabled: this.config.enabled,
      pauseMs: () => (this.backlog ? 0 : this.config.intervalMs),
      run: () => this.scheduledPass(),
    });
  }

  private async scheduledPass(): Promise<void> {
    this.backlog = false;
    const { matches, claimed } = await this.pass();
    if (matches > 0) this.logger.log(`made ${matches} match(es)`);
    this.backlog = claimed >= this.config.batchSize;
  }

  /** One matchmaking pass; answers the number of matches made (new sessions, and sessions backfilled). */
  async runOnce(): Promise<number> {
    return (await this.pass()).matches;
  }

  private async pass(): Promise<{ matches: number; claimed: number }> {
    const expired = await this.tickets.transaction((transaction) => this.tickets.expireDue(transaction, this.config.batchSize));
    this.metrics.countTicketsEnded('EXPIRED', expired.length);
    // Two passes that each matched one of a user's tickets (MATCHMAKER_TICKETS_PER_USER > 1) deadlock
    // on the other's; PostgreSQL aborts one, which runs again without what the other took.
    return withRetry(() => this.tickets.transaction((transaction) => this.matchWaiting(transaction)));
  }

  private async matchWaiting(transaction: Transaction): Promise<{ matches: number; claimed: number }> {
    if (!(await this.tickets.takePassLock(transaction))) return { matches: 0, claimed: 0 };
    const now = Date.now();
    const waiting = await this.tickets.claimSearching(transaction, this.config.batchSize);
    if (waiting.length === 0) return { matches: 0, claimed: 0 };
    const open = await this.openSessions(transaction, waiting);
    const { backfills, matches } = planPass(waiting, open, { weights: this.config.weights, now, relaxation: this.config.relaxation });

    const placements: Placement[] = [];
    for (const backfill of backfills) placements.push(...(await this.fill(transaction, backfill)));
    placements.push(...(await this.seat(transaction, matches)));
    const matched = await this.tickets.markMatched(transaction, placements);
    if (this.config.ticketsPerUser > 1) {
      const others = await this.tickets.endQueuedElsewhere(
        transaction,
        matched.flatMap((ticket) => ticket.users),
        matched.map((ticket) => ticket.uid),
      );
      this.metrics.countTicketsEnded('MATCHED_ELSEWHERE', others.length);
    }

    const waits = (tickets: Ticket[]) => tickets.map((ticket) => (now - ticket.dateCreated.getTime()) / 1000);
    this.metrics.countMatches('backfill', backfills.length, waits(backfills.flatMap(({ seats }) => seats.map(({ ticket }) => ticket))));
    this.metrics.countMatches('session', matches.length, waits(matches.flatMap(({ teams }) => teams.flat())));
    return { matches: backfills.length + matches.length, claimed: waiting.length };
  }

  /** The sessions waiting for backfill that could take some of these tickets, with the tickets seated in them. */
  private async openSessions(transaction: Transaction, waiting: Ticket[]): Promise<Array<OpenSession>> {
    const shapes = [...new Map(waiting.map((ticket) => [`${ticket.numTeams}x${ticket.teamSize}`, ticket])).values()];
    const sessions = await this.sessions.lockOpenForBackfill(transaction, shapes, BACKFILL_SESSIONS);
    if (sessions.length === 0) return [];
    const seated = await this.tickets.matchedInto(
      transaction,
      sessions.map((session) => session.uid),
    );
    // Seated tickets are held to their criteria as they were (no dateCreated, no relaxation): their waiting has ended.
    return sessions.map((session) => ({
      ...session,
      tickets: seated
        .filter((ticket) => ticket.sessionUid === session.uid)
        .map(({ uid, hostUid, numTeams, teamSize, users, criteria, statistics }) => ({
          uid,
          hostUid,
          numTeams,
          teamSize,
          users,
          criteria,
          statistics,
        })),
    }));
  }

  /** Open seats filled: the session's roster grows (pushed to its people as session.updated). */
  private async fill(transaction: Transaction, { session, seats }: Backfill<Ticket>): Promise<Placement[]> {
    const roster = seats.reduce((current, { ticket, teamId }) => seatParty(current, ticket.users, teamId), {
      users: session.users,
      teams: session.teams,
    });
    await this.sessions.updateVersioned(session.uid, roster, undefined, transaction);
    return seats.map(({ ticket }) => ({ ticketUid: ticket.uid, sessionUid: session.uid }));
  }

  /** Each match becomes a LOCKED session with its teams filled, hosted by the oldest ticket's host. */
  private async seat(transaction: Transaction, matches: Array<Match<Ticket>>): Promise<Placement[]> {
    const placements: Placement[] = [];
    const sessions = matches.map(({ anchor, teams }) => {
      const uid = randomUUID();
      for (const ticket of teams.flat()) placements.push({ ticketUid: ticket.uid, sessionUid: uid });
      return {
        uid,
        status: 'WAITING_FOR_PLAYERS' as const,
        // LOCKED: the match is complete; nobody else joins it.
        visibility: 'LOCKED' as const,
        numTeams: anchor.numTeams,
        teamSize: anchor.teamSize,
        teams: teams.map((tickets, id) => ({ id, members: tickets.flatMap((ticket) => ticket.users) })),
        users: teams.flat().flatMap((ticket) => ticket.users),
        hostUid: anchor.hostUid,
      };
    });
    await this.sessions.insertMany(transaction, sessions);
    return placements;
  }
}
