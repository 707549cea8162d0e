import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RealtimeHub } from '../realtime/realtime.hub.js';
import { depart } from './roster.js';
import { SessionsRepository } from './sessions.repository.js';

/** Sessions swept in one transaction at most; a longer backlog takes the next sweeps. */
const SWEEP_BATCH = 200;

/**
 * Lobby liveness: members show they are there with POST /sessions/{id}/heartbeat, or by holding a
 * realtime socket open (this worker marks the users of this instance's sockets present); a member
 * silent for SESSION_MEMBER_TIMEOUT is removed, the host passes to the next member, and a session
 * still waiting for players that is left empty ends. Every instance sweeps; sessions are locked with
 * SKIP LOCKED, so sweeps share the work and a session is never swept twice at once.
 */
@Injectable()
export class SessionLivenessService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SessionLiveness');
  private readonly timeoutSeconds: number;
  private readonly enabled: boolean;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly hub: RealtimeHub,
    private readonly metrics: MetricsService,
    @InjectConfig() config: AppConfig,
  ) {
    this.timeoutSeconds = config.sessionMemberTimeoutSeconds;
    // MATCHMAKER_ENABLED=false keeps every background worker of matchmaking off this instance.
    this.enabled = config.matchmaker.enabled && this.timeoutSeconds > 0;
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Marks this instance's socket holders present, then removes silent members; answers how many were removed. */
  async sweepOnce(): Promise<number> {
    await this.sessions.touchPresence(this.hub.connectedUsers());
    const removed = await this.sessions.transaction(async (transaction) => {
      let count = 0;
      for (const { session, silent } of await this.sessions.lockWithSilentMembers(transaction, this.timeoutSeconds, SWEEP_BATCH)) {
        await this.sessions.removeMembers(transaction, session.uid, depart(session, silent), silent);
        count += silent.length;
      }
      return count;
    });
    this.metrics.countMembersTimedOut(removed);
    return removed;
  }

  /** Four sweeps per timeout: a silent member goes between one and 1.25 timeouts after their last sign of life. */
  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.running = this.sweepOnce()
          .then((removed) => {
            if (removed > 0) this.logger.log(`removed ${removed} silent session member(s)`);
          })
          .catch((error: unknown) => this.logger.warn(`session sweep failed: ${(error as Error).message}`))
          .finally(() => this.schedule());
      },
      Math.max(250, (this.timeoutSeconds * 1000) / 4),
    );
    this.timer.unref();
  }
}
