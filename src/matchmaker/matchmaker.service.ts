import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DataSource, type EntityManager } from 'typeorm';
import { matchmakerConfig } from '../config/configuration.js';
import { Session } from '../sessions/session.entity.js';
import { Ticket } from '../tickets/ticket.entity.js';
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

  constructor(
    private readonly dataSource: DataSource,
    @Inject(matchmakerConfig.KEY) private readonly config: ConfigType<typeof matchmakerConfig>,
  ) {}

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
    return this.dataSource.transaction(async (manager) => {
      const waiting = await manager
        .createQueryBuilder(Ticket, 'ticket')
        .where(`ticket.status = 'SEARCHING'`)
        .orderBy('ticket.dateCreated', 'ASC')
        .addOrderBy('ticket.uid', 'ASC')
        .limit(this.config.batchSize)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      const matches = findMatches(waiting, this.config.weights);
      for (const match of matches) await this.createSession(manager, match);
      return matches.length;
    });
  }

  private async createSession(manager: EntityManager, match: Match<Ticket>): Promise<void> {
    const { anchor, teams } = match;
    const [session] = (
      await manager
        .createQueryBuilder()
        .insert()
        .into(Session)
        .values({
          status: 'WAITING_FOR_PLAYERS',
          // LOCKED: the match is complete; nobody else joins it.
          visibility: 'LOCKED',
          numTeams: anchor.numTeams,
          teamSize: anchor.teamSize,
          teams: teams.map((tickets, id) => ({ id, members: tickets.flatMap((ticket) => ticket.users) })),
          users: teams.flat().flatMap((ticket) => ticket.users),
          hostUid: anchor.hostUid,
        })
        .returning(['uid'])
        .execute()
    ).raw as Array<{ uid: string }>;
    await manager
      .createQueryBuilder()
      .update(Ticket)
      .set({ status: 'MATCH_FOUND', sessionUid: session.uid, version: () => 'version + 1', dateModified: () => 'now()' })
      .whereInIds(teams.flat().map((ticket) => ticket.uid))
      .execute();
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
