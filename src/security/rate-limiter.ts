import type { IncomingMessage } from 'node:http';
import { HttpStatus, Injectable } from '@nestjs/common';
import {
  DEFAULT_IPV6_SUBNET_PREFIX,
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  normalizeIp,
  type ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { ApiException, ErrorCode } from '../common/errors.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { clientAddressOf } from './client-address.js';
import { Budget } from '../common/rate-limit.decorators.js';

/** What a budget allows: `limit` requests per `ttl` milliseconds, then none for `blockDuration` (0: until one ages out). */
export interface Allowance {
  limit: number;
  ttl: number;
  blockDuration: number;
}

/**
 * The rate-limit budgets of SecurityModule, spent by REST requests (RateLimitGuard) and /realtime
 * upgrades (RealtimeAuth) through the same storage under the same keys, `<budget>:user:<uid>` or
 * `<budget>:ip:<address>`: a client has one budget, however it calls.
 */
@Injectable()
export class RateLimiter {
  readonly enabled: boolean;
  /** The address of a request Fastify does not see (an upgrade), as `request.ip` would give it. */
  readonly clientAddress: (request: IncomingMessage) => string | undefined;
  private readonly allowances = new Map<string, Allowance>();
  private readonly ipv6SubnetPrefix: number;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    @InjectConfig() config: AppConfig,
  ) {
    this.enabled = config.rateLimit.enabled;
    this.clientAddress = clientAddressOf(config.trustProxy);
    const throttlers = Array.isArray(options) ? options : options.throttlers;
    this.ipv6SubnetPrefix = (Array.isArray(options) ? undefined : options.ipv6SubnetPrefix) ?? DEFAULT_IPV6_SUBNET_PREFIX;
    const isNumber = (value: unknown): value is number => typeof value === 'number';
    for (const { name, limit, ttl, blockDuration } of throttlers) {
      if (!isNumber(limit) || !isNumber(ttl) || (blockDuration !== undefined && !isNumber(blockDuration))) {
        throw new Error(`the rate limit "${name}" needs fixed numbers: upgrades to /realtime are counted outside any route`);
      }
      // ThrottlerGuard's default: over the limit, refused for a window.
      this.allowances.set(name ?? 'default', { limit, ttl, blockDuration: blockDuration ?? ttl });
    }
  }

  /** The tracker of a signed-in user (our token's `sub`, verified). */
  byUser(userUid: string): string {
    return `user:${userUid}`;
  }

  /** The tracker of an address: an IPv6 address counts by its /64 network, which one host usually owns (the library's rule). */
  byAddress(address: string | undefined): string {
    return `ip:${normalizeIp(address as string, this.ipv6SubnetPrefix)}`;
  }

  /**
   * Spends one request of `budget` for `tracker`. Over the budget, throws the 429 RATE_LIMITED to answer
   * with, which carries the Retry-After. `allowance`: a route's own, when it has one.
   */
  async spend(budget: string, tracker: string, allowance = this.allowances.get(budget)): Promise<void> {
    if (!allowance) throw new Error(`no rate limit is named "${budget}"`);
    const { isBlocked, timeToBlockExpire } = await this.storage.increment(
      `${budget}:${tracker}`,
      allowance.ttl,
      allowance.limit,
      allowance.blockDuration,
      budget,
    );
    if (!isBlocked) return;
    const retryAfter = Math.max(1, timeToBlockExpire);
    const what =
      budget === Budget.SIGN_IN
        ? 'sign-ins from this address'
        : tracker.startsWith('user:')
          ? 'requests for this user'
          : 'requests from this address';
    throw new ApiException(
      HttpStatus.TOO_MANY_REQUESTS,
      ErrorCode.RATE_LIMITED,
      `too many ${what}: at most ${allowance.limit} a minute; retry in ${retryAfter} s`,
      {},
      retryAfter,
    );
  }
}
