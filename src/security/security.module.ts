import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { Budget } from './rate-limit.decorators.js';

const MINUTE_MS = 60_000;

/**
 * Rate limiting (RATE_LIMIT_* variables); its guard, RateLimitGuard, is registered with the other
 * global guards in AppModule. Counters live in this instance's memory: behind a load balancer each
 * instance counts its own requests, so a client's real budget is the limit times the number of
 * instances it reaches.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: ({ rateLimit }: AppConfig) => ({
        // blockDuration 0: a sliding window. A caller over the limit waits until their oldest request
        // of the minute ages out (Retry-After), and refused requests do not extend the wait.
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
})
export class SecurityModule {}
