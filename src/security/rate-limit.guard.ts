import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { TokenVerifier } from './identity.ports.js';
import { IS_PUBLIC } from '../common/auth.decorators.js';
import { Budget, SIGN_IN_RATE_LIMIT } from '../common/rate-limit.decorators.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * @nestjs/throttler as the service needs it. It runs before the JwtGuard (AppModule states the
 * order), so that floods of bad tokens are counted too, and it verifies
 * the token itself to count a signed-in caller by user: an unverified `sub` would let anyone spend
 * another player's budget. The verification is the JwtGuard's (TokenVerifier: AccessTokens), done once per request. Each budget spans all routes, not one route (the library's default key),
 * and upgrades to /realtime too: the library decides which budgets apply to a route and with which
 * limits, RateLimiter counts and refuses, for both. Routes opt out with @NoRateLimit() (health, metrics).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: RateLimiter,
    private readonly tokens: TokenVerifier,
  ) {
    super(options, storage, reflector);
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(!this.limiter.enabled || context.getType() !== 'http');
  }

  protected override async handleRequest({ context, throttler, limit, ttl, blockDuration }: ThrottlerRequest): Promise<boolean> {
    // Spent before the body was read (rate-limit.hook.ts).
    if (throttler.name === Budget.IP) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (throttler.name === Budget.SIGN_IN && !this.reflector.getAllAndOverride<boolean>(SIGN_IN_RATE_LIMIT, targets)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const countsUsers = throttler.name === Budget.CALLER && !this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets);
    const tracker = countsUsers ? await this.callerOf(request) : this.limiter.byAddress(request.ip);
    await this.limiter.spend(throttler.name ?? 'default', tracker, { limit, ttl, blockDuration });
    return true;
  }

  /** `user:<uid>` for a valid token of ours; the address otherwise (the JwtGuard then answers 401). */
  private async callerOf(request: FastifyRequest): Promise<string> {
    const userUid = await this.tokens.userUidOf(request, request.headers.authorization);
    return userUid === undefined ? this.limiter.byAddress(request.ip) : this.limiter.byUser(userUid);
  }
}
