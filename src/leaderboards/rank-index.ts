import { Injectable, Logger } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { ChangeCursor, type RankChange } from './change-cursor.js';
import { CHANGE_BATCH, LeaderboardRanksRepository } from './leaderboard-ranks.repository.js';
import type { RankMoment, RankReader, StandingRead } from './rank-reader.js';
import { RankSet } from './rank-set.js';
import { SharedRun } from './shared-run.js';

/** How often an idle instance catches up with the log on its own, and drops the structures of closed periods. */
const CATCH_UP_MS = 1000;
const SWEEP_MS = 10_000;
/** Gaps this many, or more, say something is off: the structure is rebuilt rather than trusted. */
const MAX_AWAITED = 100_000;

/**
 * The ranks of every open period, in this process: PostgreSQL is the truth, and each record write
 * logs its rank-key change (leaderboard_rank_changes) in its own transaction; this structure loads
 * the open periods' keys at start (a snapshot) and then applies the log. A read or write that needs
 * ranks first catches up (one query serves every caller waiting at the time), so that an answer
 * reflects every write committed before it was asked, on whichever instance: instances agree. An
 * instance that fell further behind than the log keeps (LEADERBOARD_LOG_RETENTION), or whose awaited
 * numbers overflow, rebuilds from PostgreSQL. docs/GUIDE.md (Leaderboards) and docs/PERFORMANCE.md
 * have the design's figures. RankStructure starts it: without REDIS_URL, and while Redis is away.
 */
@Injectable()
export class RankIndex implements RankReader {
  private readonly logger = new Logger('RankIndex');
  private sets = new Map<string, RankSet>();
  private cursor = new ChangeCursor();
  private readonly catchUps = new SharedRun(() => this.run());
  private caughtUpAt = 0;
  private rebuildWanted = true;
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly retentionMs: number;

  constructor(
    private readonly log: LeaderboardRanksRepository,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.retentionMs = config.leaderboards.logRetentionSeconds * 1000;
  }

  /** Whether it is built and following the log. */
  get started(): boolean {
    return this.timer !== undefined;
  }

  /** Whether it holds the open periods now (started, and not waiting for a rebuild). */
  get built(): boolean {
    return this.started && !this.rebuildWanted;
  }

  /** Builds the structure from PostgreSQL and follows the log from then on. */
  async start(): Promise<void> {
    if (this.started) return this.catchUp();
    this.rebuildWanted = true;
    this.timer = this.jobs.every('leaderboard-rank-catch-up', CATCH_UP_MS, () => this.catchUp());
    this.sweeper = this.jobs.every('leaderboard-rank-sweep', SWEEP_MS, () => this.sweep());
    await this.catchUp();
  }

  /** Stops following the log and lets the structure go (its memory with it). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    this.timer = this.sweeper = undefined;
    await this.catchUps.settled();
    this.sets = new Map();
    this.rebuildWanted = true;
  }

  async ranks(period: string, keys: string[]): Promise<{ size: number; ranks: number[] }> {
    await this.catchUp();
    return { size: this.size(period), ranks: keys.map((key) => this.rankOf(period, key)) };
  }

  async around(period: string, key: string, limit: number): Promise<{ keys: string[]; firstRank: number; size: number }> {
    await this.catchUp();
    let before = this.before(period, key, Math.floor((limit - 1) / 2));
    const after = this.after(period, key, limit - 1 - before.length);
    if (before.length + after.length < limit - 1) before = this.before(period, key, limit - 1 - after.length);
    const keys = [...before, key, ...after];
    return { keys, firstRank: this.rankOf(period, keys[0]), size: this.size(period) };
  }

  async page(period: string, after: string | undefined, count: number): Promise<{ keys: string[]; size: number; moment: RankMoment }> {
    await this.catchUp();
    return { keys: this.after(period, after, count), size: this.size(period), moment: this.moment() };
  }

  standing(period: string, key: string | null, oldKey: string | null, top: number): Promise<StandingRead | undefined> {
    const present = oldKey !== null && this.has(period, oldKey);
    return Promise.resolve({
      size: this.size(period),
      present,
      rank: key === null ? 0 : this.rankOf(period, key),
      oldRank: present ? this.rankOf(period, oldKey) : 0,
      atTop: top > 0 ? this.after(period, undefined, top)[top - 1] : undefined,
    });
  }

  /** Applies every change committed before the call (SharedRun: one log read serves every caller waiting). */
  catchUp(): Promise<void> {
    return this.catchUps.request();
  }

  /** Rebuilds from PostgreSQL at the next catch-up (and waits for it). */
  rebuild(): Promise<void> {
    this.rebuildWanted = true;
    return this.catchUp();
  }

  /** Ranked records in the period. */
  private size(period: string): number {
    return this.sets.get(period)?.size ?? 0;
  }

  /** The rank `key` holds, or would hold (1 + the keys before it). */
  private rankOf(period: string, key: string): number {
    return (this.sets.get(period)?.countBefore(key) ?? 0) + 1;
  }

  /** Whether `key` is ranked in the period. */
  private has(period: string, key: string): boolean {
    return this.sets.get(period)?.has(key) ?? false;
  }

  /** Up to `count` keys after `key` (from the first when undefined), in rank order. */
  private after(period: string, key: string | undefined, count: number): string[] {
    return this.sets.get(period)?.after(key, count) ?? [];
  }

  /** Up to `count` keys before `key`, in rank order. */
  private before(period: string, key: string, count: number): string[] {
    return this.sets.get(period)?.before(key, count) ?? [];
  }

  /** What is applied now, for a page cursor to come back to. */
  private moment(): RankMoment {
    return { after: this.cursor.after, awaited: this.cursor.awaited };
  }

  private async run(): Promise<void> {
    const now = Date.now();
    if (this.rebuildWanted || (this.caughtUpAt > 0 && now - this.caughtUpAt > this.retentionMs / 2)) {
      await this.load();
      return;
    }
    for (;;) {
      const batch = await this.log.changesAfter(this.cursor.after, this.cursor.awaited);
      const fresh = this.cursor.take(batch, Date.now());
      for (const change of fresh) this.apply(change);
      if (batch.length < CHANGE_BATCH) break;
    }
    this.cursor.forget(Date.now() - this.retentionMs);
    if (this.cursor.awaited.length >= MAX_AWAITED) {
      this.logger.warn(`${this.cursor.awaited.length} rank changes awaited: rebuilding from PostgreSQL`);
      this.rebuildWanted = true;
    }
    this.caughtUpAt = now;
  }

  private apply({ periodUid, removed, added }: RankChange): void {
    let set = this.sets.get(periodUid);
    if (!set) this.sets.set(periodUid, (set = new RankSet()));
    if (removed !== null) set.remove(removed);
    if (added !== null) set.add(added);
  }

  private async load(): Promise<void> {
    const started = Date.now();
    const snapshot = await this.log.snapshot();
    const sets = new Map<string, RankSet>();
    let keys = 0;
    for (const [period, sorted] of snapshot.periods) {
      sets.set(period, RankSet.of(sorted));
      keys += sorted.length;
    }
    this.sets = sets;
    this.cursor = new ChangeCursor(snapshot.after);
    this.rebuildWanted = false;
    this.caughtUpAt = Date.now();
    this.metrics.countLeaderboardRebuild(Date.now() - started, keys);
    this.logger.log(`rank structure built: ${keys} records in ${sets.size} open periods, ${Date.now() - started} ms`);
  }

  /** Drops the structures of periods that closed or were deleted (their ranks are final in PostgreSQL). */
  private async sweep(): Promise<void> {
    const open = await this.log.stillOpen([...this.sets.keys()]);
    for (const period of this.sets.keys()) if (!open.has(period)) this.sets.delete(period);
    this.metrics.leaderboardRankedRecords.set([...this.sets.values()].reduce((sum, set) => sum + set.size, 0));
  }
}
