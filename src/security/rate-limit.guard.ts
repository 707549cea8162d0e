import { ExecutionContext, HttpStatus, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { verifyAccessToken } from '../auth/access-token.js';
import { readAuthorizationToken } from '../auth/authorization-header.js';
import { IS_PUBLIC } from '../common/auth.decorators.js';
import { ApiException, ErrorCode } from '../common/errors.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { Budget, SIGN_IN_RATE_LIMIT } from './rate-limit.decorators.js';

/**
 * @nestjs/throttler as the service needs it. It runs before the JwtGuard (AppModule states the
 * order), so that floods of bad tokens are counted too, and it verifies
 * the token itself to count a signed-in caller by user: an unverified `sub` would let anyone spend
 * another player's budget. The verification is shared with the JwtGuard (verifyAccessToken), so a
 * request pays for it once. Each budget spans all routes, not one route (the library's default key).
 * Routes opt out with @NoRateLimit() (health, metrics).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly jwt: JwtService,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    super(options, storage, reflector);
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(!this.config.rateLimit.enabled || context.getType() !== 'http');
  }

  protected override handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, throttler } = request;
    const targets = [context.getHandler(), context.getClass()];
    if (throttler.name === Budget.SIGN_IN && !this.reflector.getAllAndOverride<boolean>(SIGN_IN_RATE_LIMIT, targets)) {
      return Promise.resolve(true);
    }
    const countsUsers = throttler.name === Budget.CALLER && !this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets);
    return super.handleRequest({
      ...request,
      getTracker: (raw) => (countsUsers ? this.callerOf(raw as FastifyRequest) : this.addressOf(raw as FastifyRequest)),
      generateKey: (_context, tracker, name) => `${name}:${tracker}`,
    });
  }

  /** `user:<uid>` for a valid token of ours; the address otherwise (the JwtGuard then answers 401). */
  private async callerOf(request: FastifyRequest): Promise<string> {
    const token = readAuthorizationToken(request.headers.authorization);
    if (token) {
      try {
        const { sub } = await verifyAccessToken(this.jwt, request, token);
        if (typeof sub === 'string') return `user:${sub}`;
      } catch {
        // counted by address
      }
    }
    return this.addressOf(request);
  }

  /** The library's normalisation: IPv6 addresses count by /64 network, which one host usually owns. */
  private async addressOf(request: FastifyRequest): Promise<string> {
    return `ip:${await this.getTracker(request)}`;
  }

  protected override throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const retryAfter = Math.max(1, detail.timeToBlockExpire);
    void context.switchToHttp().getResponse<FastifyReply>().header('Retry-After', String(retryAfter));
    const budget = detail.key.startsWith(`${Budget.SIGN_IN}:`)
      ? 'sign-ins from this address'
      : detail.tracker.startsWith('user:')
        ? 'requests for this user'
        : 'requests from this address';
    return Promise.reject(
      new ApiException(
        HttpStatus.TOO_MANY_REQUESTS,
        ErrorCode.RATE_LIMITED,
        `too many ${budget}: at most ${detail.limit} a minute; retry in ${retryAfter} s`,
      ),
    );
  }
}
