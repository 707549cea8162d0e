import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RedisConnection } from '../redis/redis.connection.js';
import { FailoverThrottlerStorage } from './failover-throttler-storage.js';
import { Budget } from '../common/rate-limit.decorators.js';
import { RateLimiter } from './rate-limiter.js';

const MINUTE_MS = 60_000;

/**
 * Rate limiting (RATE_LIMIT_* variables): RateLimiter counts, for the REST guard, RateLimitGuard
 * (registered with the other global guards in AppModule), and for /realtime upgrades. Counters live in Redis when REDIS_URL is set, so that a limit holds
 * across instances; otherwise (and while Redis is away) in this instance's memory, where behind a load
 * balancer a client's real budget is the limit times the number of instances it reaches.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, RedisConnection, MetricsService],
      useFactory: ({ rateLimit }: AppConfig, redis: RedisConnection, metrics: MetricsService) => ({
        storage: new FailoverThrottlerStorage(redis, metrics),
        // blockDuration 0: in memory, a sliding window (a caller over the limit waits until their oldest
        // request of the minute ages out); in Redis, a fixed window per minute, and a caller over the
        // limit waits a minute from their first refused request. Refused requests never extend the wait.
        throttlers: [
          { name: Budget.CALLER, ttl: MINUTE_MS, limit: rateLimit.perMinute, blockDuration: 0 },
          { name: Budget.IP, ttl: MINUTE_MS, limit: rateLimit.ipPerMinute, blockDuration: 0 },
          { name: Budget.SIGN_IN, ttl: MINUTE_MS, limit: rateLimit.authPerMinute, blockDuration: 0 },
        ],
        // Only Retry-After, on a 429; nine X-RateLimit-* headers on every answer would cost more than they tell.
        setHeaders: false,
      }),
    }),
  ],
  providers: [RateLimiter],
  exports: [RateLimiter],
})
export class SecurityModule {}
