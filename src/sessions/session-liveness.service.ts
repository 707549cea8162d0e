import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { BackgroundJobs, type RepeatingJob } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RealtimeHub } from '../realtime/realtime.hub.js';
import { depart } from './roster.js';
import { SessionsRepository } from './sessions.repository.js';

/** Sessions one sweep visits at most, each in a transaction of its own; a longer backlog takes the next sweeps. */
const SWEEP_BATCH = 200;
/** ENDED sessions removed by one statement; a purge runs statements until the backlog is gone. */
const PURGE_BATCH = 100;
/** Between two purges of ended sessions. */
const PURGE_INTERVAL_MS = 60_000;

/**
 * Lobby liveness: members show they are there with POST /sessions/{id}/heartbeat, or by holding a
 * realtime socket open (this worker marks the users of this instance's sockets present); a member
 * silent for SESSION_MEMBER_TIMEOUT is removed, the host passes to the next member, and a session
 * still waiting for players that is left empty ends. Every instance sweeps; sessions are locked with
 * SKIP LOCKED, so sweeps share the work and a session is never swept twice at once. Each session is
 * swept in a transaction of its own, so a sweep holds a live session's row for one update, not for a
 * whole batch. Sessions that ENDED more than SESSION_RETENTION ago are removed too, in batches.
 */
@Injectable()
export class SessionLivenessService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SessionLiveness');
  private readonly timeoutSeconds: number;
  private readonly retentionSeconds: number;
  private readonly sweeps: boolean;
  private readonly purges: boolean;
  private lastPurge = 0;
  private worker: RepeatingJob | undefined;
  private stopped = false;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly hub: RealtimeHub,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.timeoutSeconds = config.sessionMemberTimeoutSeconds;
    this.retentionSeconds = config.sessionRetentionSeconds;
    // MATCHMAKER_ENABLED=false keeps every background worker of matchmaking off this instance.
    this.sweeps = config.matchmaker.enabled && this.timeoutSeconds > 0;
    this.purges = config.matchmaker.enabled && this.retentionSeconds > 0;
  }

  onApplicationBootstrap(): void {
    if (!this.sweeps && !this.purges) return;
    // Four sweeps per timeout: a silent member goes between one and 1.25 timeouts after their last sign of life.
    const interval = this.sweeps ? Math.max(250, (this.timeoutSeconds * 1000) / 4) : PURGE_INTERVAL_MS;
    this.worker = this.jobs.repeat(
      'session-liveness',
      () => interval,
      () => this.tick(),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.worker?.stop();
  }

  /** Marks this instance's socket holders present, then removes silent members; answers how many were removed. */
  async sweepOnce(): Promise<number> {
    await this.sessions.touchPresence(this.hub.connectedUsers());
    let removed = 0;
    for (let visited = 0; visited < SWEEP_BATCH && !this.stopped; visited++) {
      const count = await this.sessions.transaction(async (transaction) => {
        const [found] = await this.sessions.lockWithSilentMembers(transaction, this.timeoutSeconds, 1);
        if (!found) return undefined;
        await this.sessions.removeMembers(transaction, found.session.uid, depart(found.session, found.silent));
        return found.silent.length;
      });
      if (count === undefined) break;
      removed += count;
    }
    this.metrics.countMembersTimedOut(removed);
    return removed;
  }

  /** Removes the sessions that ENDED more than SESSION_RETENTION ago; answers how many went. */
  async purgeEndedOnce(): Promise<number> {
    let purged = 0;
    for (let batch = PURGE_BATCH; batch === PURGE_BATCH && !this.stopped;) {
      batch = await this.sessions.deleteEndedBefore(this.retentionSeconds, PURGE_BATCH);
      purged += batch;
    }
    this.lastPurge = Date.now();
    return purged;
  }

  private async tick(): Promise<void> {
    // Each on its own: a failed sweep does not hold the purge back.
    if (this.sweeps) {
      await this.jobs.run('session-sweep', async () => {
        const removed = await this.sweepOnce();
        if (removed > 0) this.logger.log(`removed ${removed} silent session member(s)`);
      });
    }
    if (this.purges && Date.now() - this.lastPurge >= PURGE_INTERVAL_MS) {
      await this.jobs.run('session-purge', async () => {
        const purged = await this.purgeEndedOnce();
        if (purged > 0) this.logger.log(`removed ${purged} session(s) ended more than ${this.retentionSeconds} s ago`);
      });
    }
  }
}
