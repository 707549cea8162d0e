import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AuthModule } from '../auth/auth.module.js';
import { securityConfig } from '../config/configuration.js';
import { Budget } from './rate-limit.decorators.js';
import { RateLimitGuard } from './rate-limit.guard.js';

const MINUTE_MS = 60_000;

/**
 * Rate limiting (RATE_LIMIT_* variables). Counters live in this instance's memory: behind a load
 * balancer each instance counts its own requests, so a client's real budget is the limit times the
 * number of instances it reaches. Import it before AuthModule: its guard must run before the JwtGuard.
 */
@Module({
  imports: [
    AuthModule,
    ThrottlerModule.forRootAsync({
      inject: [securityConfig.KEY],
      useFactory: ({ rateLimit }: ConfigType<typeof securityConfig>) => ({
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
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class SecurityModule {}
