import { Injectable, Logger } from '@nestjs/common';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';
import { BackgroundJobs, type ScheduledJob } from '../../metrics/background-jobs.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { ChangeCursor, type RankChange } from './change-cursor.js';
import { CHANGE_BATCH, LeaderboardRanksRepository } from './leaderboard-ranks.repository.js';
import { pageAtMoment, type RankMoment, type RankIndex, type StandingRead } from './rank-index.js';
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
 * have the design's figures. FailoverRankIndex starts it: without REDIS_URL, and while Redis is away.
 *
 * It holds at most LEADERBOARD_RANKS_IN_MEMORY ranked records: a rebuild loads the smallest periods
 * that fit together, and a period whose growth would pass the bound is let go, the largest first. The
 * periods let go are ranked from PostgreSQL (LeaderboardRanksRepository: counts on the index of ranked
 * records) until they close or the structure is rebuilt; their changes in the log are passed over.
 */
@Injectable()
export class InProcessRankIndex implements RankIndex {
  private readonly logger = new Logger('InProcessRankIndex');
  private sets = new Map<string, RankSet>();
  /** The open periods ranked from PostgreSQL: they would have passed `maxRecords` here. */
  private inDatabase = new Set<string>();
  /** Ranked records held in `sets`. */
  private held = 0;
  private readonly maxRecords: number;
  private cursor = new ChangeCursor();
  private readonly catchUps = new SharedRun(() => this.run());
  private caughtUpAt = 0;
  private rebuildWanted = true;
  /** Its periodic jobs while it is started: catching up with the log, and sweeping closed periods. */
  private following: ScheduledJob[] | undefined;
  private readonly retentionMs: number;

  constructor(
    private readonly log: LeaderboardRanksRepository,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.retentionMs = config.leaderboards.logRetentionSeconds * 1000;
    this.maxRecords = config.leaderboards.ranksInMemory;
  }

  /** Whether it is built and following the log. */
  get started(): boolean {
    return this.following !== undefined;
  }

  /** Whether it holds the open periods now (started, and not waiting for a rebuild). */
  get built(): boolean {
    return this.started && !this.rebuildWanted;
  }

  /** Builds the structure from PostgreSQL and follows the log from then on. */
  async start(): Promise<void> {
    if (this.started) return this.catchUp();
    this.rebuildWanted = true;
    this.following = [
      this.jobs.schedule({ name: 'leaderboard-rank-catch-up', everyMs: CATCH_UP_MS, run: () => this.catchUp() }),
      this.jobs.schedule({ name: 'leaderboard-rank-sweep', everyMs: SWEEP_MS, run: () => this.sweep() }),
    ];
    await this.catchUp();
  }

  /** Stops following the log and lets the structure go (its memory with it). */
  async stop(): Promise<void> {
    const following = this.following ?? [];
    this.following = undefined;
    await Promise.all(following.map((job) => job.stop()));
    await this.catchUps.settled();
    this.sets = new Map();
    this.inDatabase = new Set();
    this.held = 0;
    this.rebuildWanted = true;
  }

  async ranks(period: string, keys: string[]): Promise<{ size: number; ranks: number[] }> {
    await this.catchUp();
    if (this.inDatabase.has(period)) return this.log.ranksOf(period, keys);
    return { size: this.size(period), ranks: keys.map((key) => this.rankOf(period, key)) };
  }

  async around(period: string, key: string, limit: number): Promise<{ keys: string[]; firstRank: number; size: number }> {
    await this.catchUp();
    if (this.inDatabase.has(period)) return this.aroundInDatabase(period, key, limit);
    let before = this.before(period, key, Math.floor((limit - 1) / 2));
    const after = this.after(period, key, limit - 1 - before.length);
    if (before.length + after.length < limit - 1) before = this.before(period, key, limit - 1 - after.length);
    const keys = [...before, key, ...after];
    return { keys, firstRank: this.rankOf(period, keys[0]), size: this.size(period) };
  }

  async page(period: string, after: string | undefined, count: number): Promise<{ keys: string[]; size: number; moment: RankMoment }> {
    await this.catchUp();
    const moment = this.moment();
    if (!this.inDatabase.has(period)) return { keys: this.after(period, after, count), size: this.size(period), moment };
    // PostgreSQL answers as it is now: the changes it holds that the moment had not applied are undone, so
    // that the page is the moment's, as a later page's cursor expects.
    for (let extra = 0; ;) {
      const now = await this.log.pageSince(period, after ?? '', count + extra, moment);
      const then = pageAtMoment(now, now.changes, after, count, extra);
      if ('readAgainWith' in then) extra = then.readAgainWith;
      else return { ...then, moment };
    }
  }

  /** around() of a period ranked from PostgreSQL: the same walk, on its index. */
  private async aroundInDatabase(period: string, key: string, limit: number): Promise<{ keys: string[]; firstRank: number; size: number }> {
    let before = await this.log.keysBefore(period, key, Math.floor((limit - 1) / 2));
    const after = await this.log.keysAfter(period, key, limit - 1 - before.length);
    if (before.length + after.length < limit - 1) before = await this.log.keysBefore(period, key, limit - 1 - after.length);
    const keys = [...before, key, ...after];
    const { size, ranks } = await this.log.ranksOf(period, [keys[0]]);
    return { keys, firstRank: ranks[0], size };
  }

  standing(period: string, key: string | null, oldKey: string | null, top: number): Promise<StandingRead | undefined> {
    // A period ranked from PostgreSQL: the write counts the others in its own transaction.
    if (this.inDatabase.has(period)) return Promise.resolve(undefined);
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
    this.metrics.leaderboardRankedRecords.set(this.held);
    if (this.cursor.awaited.length >= MAX_AWAITED) {
      this.logger.warn(`${this.cursor.awaited.length} rank changes awaited: rebuilding from PostgreSQL`);
      this.rebuildWanted = true;
    }
    this.caughtUpAt = now;
  }

  private apply({ periodUid, removed, added }: RankChange): void {
    if (this.inDatabase.has(periodUid)) return;
    let set = this.sets.get(periodUid);
    if (!set) this.sets.set(periodUid, (set = new RankSet()));
    const before = set.size;
    if (removed !== null) set.remove(removed);
    if (added !== null) set.add(added);
    this.held += set.size - before;
    while (this.held > this.maxRecords && this.sets.size > 0) this.letGoOfLargest();
  }

  /** Ranks the largest period held from PostgreSQL from now on, and lets its memory go. */
  private letGoOfLargest(): void {
    let largest: [string, RankSet] | undefined;
    for (const entry of this.sets) if (!largest || entry[1].size > largest[1].size) largest = entry;
    if (!largest) return;
    const [period, set] = largest;
    this.sets.delete(period);
    this.inDatabase.add(period);
    this.held -= set.size;
    this.metrics.leaderboardPeriodsInDatabase.set(this.inDatabase.size);
    this.logger.warn(
      `leaderboard period ${period} (${set.size} ranked records) is ranked from PostgreSQL from now on: this instance holds ` +
        `LEADERBOARD_RANKS_IN_MEMORY (${this.maxRecords}) ranked records at most`,
    );
  }

  private async load(): Promise<void> {
    const started = Date.now();
    const snapshot = await this.log.snapshot(this.maxRecords);
    const sets = new Map<string, RankSet>();
    let keys = 0;
    for (const [period, sorted] of snapshot.periods) {
      sets.set(period, RankSet.of(sorted));
      keys += sorted.length;
    }
    this.sets = sets;
    this.inDatabase = new Set(snapshot.left.keys());
    this.held = keys;
    this.cursor = new ChangeCursor(snapshot.after);
    this.rebuildWanted = false;
    this.caughtUpAt = Date.now();
    this.metrics.countLeaderboardRebuild(Date.now() - started, keys);
    this.metrics.leaderboardPeriodsInDatabase.set(this.inDatabase.size);
    const left = snapshot.left.size === 0 ? '' : `; ${snapshot.left.size} larger ones ranked from PostgreSQL (LEADERBOARD_RANKS_IN_MEMORY)`;
    this.logger.log(`rank structure built: ${keys} records in ${sets.size} open periods${left}, ${Date.now() - started} ms`);
  }

  /** Drops the structures of periods that closed or were deleted (their ranks are final in PostgreSQL). */
  private async sweep(): Promise<void> {
    const open = await this.log.stillOpen([...this.sets.keys(), ...this.inDatabase]);
    for (const [period, set] of this.sets) {
      if (open.has(period)) continue;
      this.sets.delete(period);
      this.held -= set.size;
    }
    for (const period of this.inDatabase) if (!open.has(period)) this.inDatabase.delete(period);
    this.metrics.leaderboardRankedRecords.set(this.held);
    this.metrics.leaderboardPeriodsInDatabase.set(this.inDatabase.size);
  }
}
