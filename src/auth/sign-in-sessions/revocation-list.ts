import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';
import type { Transaction } from '../../database/record.repository.js';
import { backoffDelay } from '../../common/retry.js';
import { Fanout } from '../../database/fanout.js';
import { SignInSessionsRepository, REVOCATIONS_CHANNEL } from './sign-in-sessions.repository.js';
import type { RevocationFeed } from '../../security/identity.ports.js';
import { BackgroundJobs } from '../../metrics/background-jobs.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { parseRevocation, type Revocation } from '../../security/revocation.js';

/** Clock difference between instances that a revocation's memory allows for. */
const SKEW_MS = 60_000;
/** Over Redis: how often, and how far back, the revocations are read again. */
const CATCH_UP_MS = 1000;
const CATCH_UP_WINDOW_SECONDS = 60;

/**
 * What the JwtGuard asks of every request: was this token's session revoked, or was its user's every
 * token before some time withdrawn (a ban, signing out everywhere)? Answered from memory: the
 * revocations of the last access-token lifetime, loaded at start and kept current by the fan-out
 * (every instance hears each revocation when it commits). After the fan-out was interrupted, the list
 * is loaded again; until then, and whenever the fan-out cannot be vouched for, the database answers
 * instead, so a revoked token is never accepted for want of news.
 */
@Injectable()
export class RevocationList implements RevocationFeed, OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Revocations');
  /** Revoked session → when to forget it (epoch ms): every token it issued has expired by then. */
  private readonly sessions = new Map<string, number>();
  /** User → the time (epoch ms) before which their tokens no longer count. */
  private readonly notBefore = new Map<string, number>();
  private readonly listeners: Array<(revocation: Revocation) => void> = [];
  /** Whether the memory holds every revocation committed so far. */
  private loaded = false;
  /** Bumped when the fan-out is lost: a load started before then does not vouch for the list. */
  private generation = 0;
  private stopping = false;

  constructor(
    private readonly repository: SignInSessionsRepository,
    private readonly fanout: Fanout,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.fanout.on(REVOCATIONS_CHANNEL, (payload) => {
      const revocation = parseRevocation(payload);
      if (revocation) this.apply(revocation);
    });
    this.fanout.onLost(() => {
      this.loaded = false;
      this.generation += 1;
    });
    this.fanout.onRestored(() => void this.jobs.run('revocations-load', () => this.load()));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.fanout.listen();
    await this.load();
    this.jobs.schedule({ name: 'revocations-prune', everyMs: 60_000, run: () => this.prune() });
    // Over Redis an announcement can be lost (published after the commit): the recent revocations are
    // read again every second, so a lost one takes effect within that.
    // The next round tries again; meanwhile the list is as current as the fan-out made it.
    this.jobs.schedule({ name: 'revocations-catch-up', everyMs: CATCH_UP_MS, enabled: this.fanout.viaRedis, run: () => this.catchUp() });
  }

  onApplicationShutdown(): void {
    this.stopping = true;
  }

  /** Whether the memory answers for itself (else isRevoked asks the database). */
  get current(): boolean {
    return this.loaded && this.fanout.current;
  }

  /**
   * Whether a token of `sessionUid`, issued at `issuedAt`, no longer counts. Synchronous while the list
   * is current (the hot path adds no await); a promise of the database's answer otherwise.
   */
  isRevoked(userUid: string, sessionUid: string, issuedAt: Date): boolean | Promise<boolean> {
    if (!this.current) {
      if (this.fanout.viaRedis) this.metrics.countRedisFallback('revocation');
      return this.repository.isRevoked(userUid, sessionUid, issuedAt);
    }
    if (this.sessions.has(sessionUid)) return true;
    const notBefore = this.notBefore.get(userUid);
    // Tokens carry whole seconds: one issued in the second of a ban is caught by its session instead.
    return notBefore !== undefined && issuedAt.getTime() < Math.floor(notBefore / 1000) * 1000;
  }

  /**
   * Runs `work` in one transaction. The revocation it answers (if any) is announced to every instance
   * in that transaction, and taken into this instance's memory as soon as it commits: the answer to
   * the request that revoked never races the fan-out.
   */
  async transaction<R extends { revocation?: Revocation }>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    const result = await this.repository.transaction(async (transaction) => {
      const answer = await work(transaction);
      if (answer.revocation) await this.repository.announce(transaction, answer.revocation);
      return answer;
    });
    if (result.revocation) this.apply(result.revocation);
    return result;
  }

  /** Calls `listener` with every revocation this instance learns of (to close the sockets it holds). */
  onRevoked(listener: (revocation: Revocation) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Takes a revocation into memory: this instance's own as soon as they commit (the fan-out brings
   * them too, a moment later), others' as they are heard. Repeats change nothing.
   */
  apply(revocation: Revocation): void {
    const forgetAt = Date.now() + this.config.jwt.ttlSeconds * 1000 + SKEW_MS;
    let news = false;
    for (const sessionUid of revocation.sessionUids) {
      if (!this.sessions.has(sessionUid)) news = true;
      this.sessions.set(sessionUid, forgetAt);
    }
    if (revocation.notBefore !== undefined && revocation.notBefore > (this.notBefore.get(revocation.userUid) ?? 0)) {
      this.notBefore.set(revocation.userUid, revocation.notBefore);
      news = true;
    }
    if (news) for (const listener of this.listeners) listener(revocation);
  }

  /** Loads the revocations that may still matter; vouches for the list if the fan-out stayed up meanwhile. */
  private async load(): Promise<void> {
    const generation = this.generation;
    const lifetime = this.config.jwt.ttlSeconds + SKEW_MS / 1000;
    for (let attempt = 0; !this.stopping && generation === this.generation; attempt++) {
      try {
        await this.readRecent(lifetime);
        if (generation === this.generation && this.fanout.current) this.loaded = true;
        return;
      } catch (error) {
        if (attempt === 0) this.logger.warn(`cannot load the revocations (${(error as Error).message}): the database answers meanwhile`);
        await sleep(backoffDelay(attempt + 1, 100, 5000));
      }
    }
  }

  /** Takes the revocations of the last `seconds` into memory. */
  private async readRecent(seconds: number): Promise<void> {
    const { sessions, users } = await this.repository.recentRevocations(seconds);
    for (const { uid, userUid } of sessions) this.apply({ userUid, sessionUids: [uid], reason: 'revoked' });
    for (const { uid, notBefore } of users)
      this.apply({ userUid: uid, sessionUids: [], notBefore: notBefore.getTime(), reason: 'revoked' });
  }

  private catchUp(): Promise<void> {
    return this.readRecent(CATCH_UP_WINDOW_SECONDS);
  }

  private prune(): void {
    const now = Date.now();
    const horizon = now - this.config.jwt.ttlSeconds * 1000 - SKEW_MS;
    for (const [sessionUid, forgetAt] of this.sessions) if (forgetAt < now) this.sessions.delete(sessionUid);
    for (const [userUid, notBefore] of this.notBefore) if (notBefore < horizon) this.notBefore.delete(userUid);
  }
}
