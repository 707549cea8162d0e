import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Caller } from '../../common/auth.decorators.js';
import { ApiException } from '../../common/errors.js';
import { withRetry } from '../../common/retry.js';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';
import { TransactionsService } from '../../economy/transactions.service.js';
import { BackgroundJobs, NOT_STOPPING } from '../../metrics/background-jobs.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { LeaderboardPayoutsRepository, PAYOUT_ATTEMPTS, type Payout } from '../leaderboard-payouts.repository.js';
import { LeaderboardPeriodsRepository } from '../leaderboard-periods.repository.js';
import { LeaderboardRanksRepository } from '../ranks/leaderboard-ranks.repository.js';
import { LeaderboardRecordsRepository } from '../leaderboard-records.repository.js';
import { RankIndex } from '../ranks/rank-index.js';

/** Periods one round closes at most, prizes it claims at once, and how many it pays side by side. */
const CLOSES_PER_ROUND = 20;
const PAYOUT_BATCH = 200;
const PAYOUT_CONCURRENCY = 4;
/** How long a claimed prize is this instance's alone: past it, another instance may pay it (the same award, by its key). */
const PAYOUT_LEASE_SECONDS = 60;

/** What one round did. */
export interface WorkerRound {
  closed: number;
  paid: number;
  failed: number;
  shown: number;
}

/**
 * The leaderboards' background work, which any number of instances run at once (unless
 * LEADERBOARD_WORKER_ENABLED=false): it closes the periods that ended LEADERBOARD_CLOSE_DELAY ago (one
 * transaction each, the period claimed with SKIP LOCKED: final ranks, prizes written to the payouts
 * outbox, `leaderboard.period_ended` to the participants), pays the prizes (each an AWARD through the
 * economy under the prize's own Idempotency-Key, marked PAID in the award's transaction: exactly once,
 * across instances and crashes), shows again the records of users whose ban is over, and removes
 * periods past their board's keepPeriods and log rows past LEADERBOARD_LOG_RETENTION.
 */
@Injectable()
export class LeaderboardWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('LeaderboardWorker');
  private readonly config: AppConfig['leaderboards'];

  constructor(
    private readonly periods: LeaderboardPeriodsRepository,
    private readonly payouts: LeaderboardPayoutsRepository,
    private readonly records: LeaderboardRecordsRepository,
    private readonly log: LeaderboardRanksRepository,
    private readonly ranks: RankIndex,
    private readonly economy: TransactionsService,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.config = config.leaderboards;
  }

  onApplicationBootstrap(): void {
    this.jobs.schedule({
      name: 'leaderboard-worker',
      enabled: this.config.workerEnabled,
      pauseMs: () => this.config.intervalMs,
      run: (stopping) => this.runOnce(stopping),
    });
  }

  /** One round (tests call it; the scheduler does otherwise); `stopping` ends its payouts between two batches. */
  async runOnce(stopping: AbortSignal = NOT_STOPPING): Promise<WorkerRound> {
    // A period's ranks come from its records in PostgreSQL; the structure only has to be current for reads after.
    let closed = 0;
    while (closed < CLOSES_PER_ROUND && (await this.closeOne())) closed++;
    const { paid, failed } = await this.payAll(stopping);
    let shown = 0;
    for (const user of await this.records.unbannedButHidden(100)) shown += await this.records.setHidden(undefined, user, false);
    await this.periods.prune(10);
    await this.log.prune(this.config.logRetentionSeconds);
    if (shown > 0 || closed > 0) await this.ranks.catchUp();
    return { closed, paid, failed, shown };
  }

  private closeOne(): Promise<boolean> {
    return withRetry(() =>
      this.periods.transaction(async (db) => {
        const due = await this.periods.claimDue(db, this.config.closeDelayMs);
        if (!due) return false;
        const { rankCount, winners } = await this.periods.close(db, due);
        this.logger.log(`closed period ${due.uid} of leaderboard ${due.leaderboardUid}: ${rankCount} ranked, ${winners} prizes to pay`);
        return true;
      }),
    );
  }

  /** Pays every prize waiting (those another instance holds are left to it), a few side by side. */
  private async payAll(stopping: AbortSignal): Promise<{ paid: number; failed: number }> {
    let paid = 0;
    let failed = 0;
    for (;;) {
      const batch = await this.payouts.claim(PAYOUT_BATCH, PAYOUT_LEASE_SECONDS);
      if (batch.length === 0) return { paid, failed };
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(PAYOUT_CONCURRENCY, batch.length) }, async () => {
          while (next < batch.length) {
            const payout = batch[next++];
            if (await this.pay(payout)) paid++;
            else failed++;
          }
        }),
      );
      if (stopping.aborted) return { paid, failed };
    }
  }

  /**
   * One prize: an AWARD to the persona in the name of the board's creator, whose Idempotency-Key
   * names the period and the persona, so that a second attempt (another instance, or after a crash
   * between the award and the PAID mark) gets the first award back instead of a second one.
   */
  private async pay(payout: Payout): Promise<boolean> {
    const board: Caller = {
      uid: payout.ownerUid,
      roles: ['admin'],
      isAdmin: true,
      sessionUid: '',
      tokenIssuedAt: new Date(0),
      tokenExpiresAt: new Date(0),
    };
    try {
      await this.economy.create(
        { type: 'AWARD', personaOneUid: payout.personaUid, personaOneInventoryItems: payout.items },
        board,
        `leaderboard-prize:${payout.periodUid}:${payout.personaUid}`,
        (db, transaction) => this.payouts.markPaid(db, payout.uid, transaction.uid),
      );
      this.metrics.countPayout('PAID');
      return true;
    } catch (error) {
      // A refusal (an item deleted since, a holding at its limit) will not pass by retrying forever.
      const final = error instanceof ApiException || payout.attempts >= PAYOUT_ATTEMPTS;
      await this.payouts.markFailed(payout.uid, (error as Error).message, final).catch(() => undefined);
      if (final) this.metrics.countPayout('FAILED');
      this.logger.warn(`prize ${payout.uid} (rank ${payout.rank} of period ${payout.periodUid}) not paid: ${(error as Error).message}`);
      return false;
    }
  }
}
