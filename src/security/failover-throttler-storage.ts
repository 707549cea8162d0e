import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import { MetricsService } from '../metrics/metrics.service.js';
import type { RedisConnection } from '../redis/redis.connection.js';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The rate-limit counters: in Redis when REDIS_URL is set and answers, so that a limit holds across
 * instances (the maintained @nest-lab storage counts a fixed window per key in one Lua script); in this
 * instance's memory otherwise (@nestjs/throttler's own storage, a sliding window), and whenever a
 * Redis command fails, so that a Redis outage never turns into refused or slow requests.
 */
export class FailoverThrottlerStorage implements ThrottlerStorage {
  private readonly local = new ThrottlerStorageService();
  private readonly shared: ThrottlerStorageRedisService | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly metrics: MetricsService,
  ) {
    if (redis.client) this.shared = new ThrottlerStorageRedisService(redis.client);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<ThrottlerStorageRecord> {
    if (this.shared && this.redis.available) {
      try {
        // The package's script cannot go without a block (PX 0 is refused, and a block of a moment
        // resets the count when it lapses): over the limit, a caller is refused for one window.
        return await this.shared.increment(key, ttl, limit, blockDuration > 0 ? blockDuration : ttl, name);
      } catch (error) {
        this.redis.failed(error);
      }
    }
    if (this.shared) this.metrics.countRedisFallback('rate_limit');
    return this.local.increment(key, ttl, limit, blockDuration, name);
  }
}
