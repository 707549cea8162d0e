import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import type { Transaction } from '../common/record.repository.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import type { Ticket } from '../tickets/ticket.entity.js';
import { TicketsRepository } from '../tickets/tickets.repository.js';
import { findMatches, type Match } from './matching.js';

/**
 * The background worker that turns waiting tickets into sessions. Each run, in one transaction, locks
 * the oldest SEARCHING tickets with `FOR UPDATE SKIP LOCKED` (tickets another instance is matching, or
 * a client is updating, are skipped, never matched twice), plans matches, creates a LOCKED session per
 * match with the teams filled, and marks its tickets MATCH_FOUND with the session's uid. Any number of
 * service instances may run it at once.
 */
@Injectable()
export class MatchmakerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MatchmakerService.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  private readonly config: AppConfig['matchmaker'];

  constructor(
    private readonly tickets: TicketsRepository,
    private readonly sessions: SessionsRepository,
    @InjectConfig() config: AppConfig,
  ) {
    this.config = config.matchmaker;
  }

  onApplicationBootstrap(): void {
    if (this.config.enabled) this.schedule();
  }

  /** Lets a run in progress finish (its transaction commits or rolls back) before the pool closes. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One matchmaking pass; answers the number of sessions created. */
  runOnce(): Promise<number> {
    return this.tickets.transaction(async (transaction) => {
      const waiting = await this.tickets.claimSearching(transaction, this.config.batchSize);
      const matches = findMatches(waiting, this.config.weights);
      for (const match of matches) await this.seat(transaction, match);
      return matches.length;
    });
  }

  /** A match becomes a LOCKED session with its teams filled, hosted by the oldest ticket's host. */
  private async seat(transaction: Transaction, { anchor, teams }: Match<Ticket>): Promise<void> {
    const session = await this.sessions.insert(
      {
        status: 'WAITING_FOR_PLAYERS',
        // LOCKED: the match is complete; nobody else joins it.
        visibility: 'LOCKED',
        numTeams: anchor.numTeams,
        teamSize: anchor.teamSize,
        teams: teams.map((tickets, id) => ({ id, members: tickets.flatMap((ticket) => ticket.users) })),
        users: teams.flat().flatMap((ticket) => ticket.users),
        hostUid: anchor.hostUid,
      },
      transaction,
    );
    await this.tickets.markMatched(
      transaction,
      teams.flat().map((ticket) => ticket.uid),
      session.uid,
    );
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then((created) => {
          if (created > 0) this.logger.log(`matched ${created} session(s)`);
        })
        .catch((error: unknown) => this.logger.warn(`matchmaking run failed: ${(error as Error).message}`))
        .finally(() => this.schedule());
    }, this.config.intervalMs);
    // The worker must not keep a process alive on its own (tests, scripts).
    this.timer.unref();
  }
}
