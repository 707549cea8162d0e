import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { BackgroundJobs } from '../../metrics/background-jobs.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { RedisConnection } from '../../redis/redis.connection.js';
import { InProcessRankIndex } from './in-process-rank-index.js';
import type { RankMoment, RankIndex, StandingRead } from './rank-index.js';
import { RedisRankIndex } from './redis-rank-index.js';

/** How often, while Redis is away, the shared structure is tried again. */
const RETRY_MS = 1000;
/** How long a starting instance waits for its Redis connection before it builds the tree instead. */
const CONNECT_MS = 3000;
/** How long the tree is kept after Redis is back: reads that chose it before the switch finish on it. */
const LET_GO_MS = 10_000;

/**
 * The RankIndex the rules are given, answering from one of the two stores: Redis sorted sets shared
 * by every instance when REDIS_URL is set (RedisRankIndex), the in-process tree otherwise
 * (InProcessRankIndex). Both follow the same log of PostgreSQL, so either answers the same ranks.
 * When a Redis command fails, this instance builds the in-process tree from PostgreSQL and answers
 * from it (a request never waits for Redis to return); once Redis answers again and its sets have
 * caught up (or been rebuilt, if it came back empty), they answer again and the tree is let go.
 */
@Injectable()
export class FailoverRankIndex implements RankIndex, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('FailoverRankIndex');
  private inRedis = false;
  private letGo: NodeJS.Timeout | undefined;

  constructor(
    private readonly inProcess: InProcessRankIndex,
    private readonly redis: RedisRankIndex,
    private readonly connection: RedisConnection,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.redis.configured) return this.inProcess.start();
    for (const deadline = Date.now() + CONNECT_MS; !this.connection.available && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      await this.redis.start();
      this.answerFromRedis(true);
    } catch (error) {
      await this.fallBack(error);
    }
    this.jobs.schedule({ name: 'leaderboard-redis-return', everyMs: RETRY_MS, run: () => this.tryRedisAgain() });
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.letGo);
    await Promise.all([this.redis.stop(), this.inProcess.stop()]);
  }

  private answerFromRedis(value: boolean): void {
    this.inRedis = value;
    this.metrics.leaderboardRanksInRedis.set(value ? 1 : 0);
  }

  /** Which structure answers now (metrics, tests). */
  get current(): 'redis' | 'in-process' {
    return this.inRedis ? 'redis' : 'in-process';
  }

  catchUp(): Promise<void> {
    return this.answer((ranks) => ranks.catchUp());
  }

  ranks(period: string, keys: string[]): Promise<{ size: number; ranks: number[] }> {
    return this.answer((ranks) => ranks.ranks(period, keys));
  }

  around(period: string, key: string, limit: number): Promise<{ keys: string[]; firstRank: number; size: number }> {
    return this.answer((ranks) => ranks.around(period, key, limit));
  }

  page(period: string, after: string | undefined, count: number): Promise<{ keys: string[]; size: number; moment: RankMoment }> {
    return this.answer((ranks) => ranks.page(period, after, count));
  }

  async standing(period: string, key: string | null, oldKey: string | null, top: number): Promise<StandingRead | undefined> {
    if (this.inRedis) {
      try {
        return await this.redis.standing(period, key, oldKey, top);
      } catch (error) {
        // Not awaited: building the tree waits for the writes under way, this one included.
        void this.jobs.run('leaderboard-rank-fall-back', () => this.fallBack(error));
      }
    }
    if (this.redis.configured) this.metrics.countRedisFallback('leaderboard_ranks');
    return this.inProcess.built ? this.inProcess.standing(period, key, oldKey, top) : undefined;
  }

  private async answer<T>(read: (ranks: RankIndex) => Promise<T>): Promise<T> {
    if (this.inRedis) {
      try {
        return await read(this.redis);
      } catch (error) {
        await this.fallBack(error);
      }
    }
    if (this.redis.configured) this.metrics.countRedisFallback('leaderboard_ranks');
    return read(this.inProcess);
  }

  private async fallBack(error: unknown): Promise<void> {
    this.connection.failed(error);
    if (this.inRedis) this.logger.warn(`Redis rank structure unavailable (${(error as Error).message}): ranks answered in process`);
    this.answerFromRedis(false);
    await this.inProcess.start();
  }

  /** Back to Redis once it answers and its sets have caught up with the log (a rebuild if it lost them). */
  private async tryRedisAgain(): Promise<void> {
    if (this.inRedis || !this.connection.available) return;
    try {
      await this.redis.catchUp();
    } catch {
      return; // Still away: the next run tries again.
    }
    this.answerFromRedis(true);
    this.logger.log('Redis rank structure caught up: ranks answered from Redis again');
    clearTimeout(this.letGo);
    this.letGo = this.jobs.after('leaderboard-rank-let-go', LET_GO_MS, () => this.inRedis && this.inProcess.stop());
  }
}
