import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { BackgroundJobs, NOT_STOPPING } from '../metrics/background-jobs.js';
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
export class SessionLivenessService implements OnApplicationBootstrap {
  private readonly logger = new Logger('SessionLiveness');
  private readonly timeoutSeconds: number;
  private readonly retentionSeconds: number;
  private readonly sweeps: boolean;
  private readonly purges: boolean;

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
    // Four sweeps per timeout: a silent member goes between one and 1.25 timeouts after their last sign of life.
    const sweepInterval = Math.max(250, (this.timeoutSeconds * 1000) / 4);
    this.jobs.schedule({
      name: 'session-sweep',
      enabled: this.sweeps,
      pauseMs: () => sweepInterval,
      run: async (stopping) => {
        const removed = await this.sweepOnce(stopping);
        if (removed > 0) this.logger.log(`removed ${removed} silent session member(s)`);
      },
    });
    // Each its own job: a failed sweep does not hold the purge back. The first purge comes with the first sweep.
    this.jobs.schedule({
      name: 'session-purge',
      enabled: this.purges,
      firstRunInMs: this.sweeps ? sweepInterval : PURGE_INTERVAL_MS,
      pauseMs: () => PURGE_INTERVAL_MS,
      run: async (stopping) => {
        const purged = await this.purgeEndedOnce(stopping);
        if (purged > 0) this.logger.log(`removed ${purged} session(s) ended more than ${this.retentionSeconds} s ago`);
      },
    });
  }

  /** Marks this instance's socket holders present, then removes silent members; answers how many were removed. */
  async sweepOnce(stopping: AbortSignal = NOT_STOPPING): Promise<number> {
    await this.sessions.touchPresence(this.hub.connectedUsers());
    let removed = 0;
    for (let visited = 0; visited < SWEEP_BATCH && !stopping.aborted; visited++) {
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
  async purgeEndedOnce(stopping: AbortSignal = NOT_STOPPING): Promise<number> {
    let purged = 0;
    for (let batch = PURGE_BATCH; batch === PURGE_BATCH && !stopping.aborted;) {
      batch = await this.sessions.deleteEndedBefore(this.retentionSeconds, PURGE_BATCH);
      purged += batch;
    }
    return purged;
  }
}
