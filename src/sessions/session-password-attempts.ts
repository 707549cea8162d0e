import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { HttpStatus, Injectable } from '@nestjs/common';
import { ApiException, ErrorCode } from '../common/errors.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { RedisConnection } from '../redis/redis.connection.js';

const MINUTE_SECONDS = 60;

/**
 * Wrong join passwords, counted per (session, user) and per session over a minute, so that a short
 * PIN cannot be guessed (and every guess costs the service an scrypt hash): past either budget the
 * join is refused with 429 before the password is even hashed. rate-limiter-flexible's brute-force
 * pattern: counters in Redis when REDIS_URL is set, so that every instance counts together, with an
 * in-memory limiter that takes over while Redis is away.
 */
@Injectable()
export class SessionPasswordAttempts {
  private readonly perUser: RateLimiterAbstract;
  private readonly perSession: RateLimiterAbstract;

  constructor(@InjectConfig() config: AppConfig, redis: RedisConnection) {
    const limiter = (keyPrefix: string, points: number): RateLimiterAbstract => {
      const options = { keyPrefix, points, duration: MINUTE_SECONDS };
      const local = new RateLimiterMemory(options);
      return redis.client ? new RateLimiterRedis({ ...options, storeClient: redis.client, insuranceLimiter: local }) : local;
    };
    this.perUser = limiter('session-password:user', config.sessionPasswordAttempts.perUser);
    this.perSession = limiter('session-password:session', config.sessionPasswordAttempts.perSession);
  }

  /** 429 when the user, or everyone together, has used up the session's wrong guesses of the minute. */
  async requireAttemptsLeft(sessionUid: string, userUid: string): Promise<void> {
    const [mine, everyone] = await Promise.all([this.perUser.get(`${sessionUid}:${userUid}`), this.perSession.get(sessionUid)]);
    const spent = [
      { counted: mine, limit: this.perUser.points, whose: 'your' },
      { counted: everyone, limit: this.perSession.points, whose: "this session's" },
    ].find(({ counted, limit }) => counted !== null && counted.consumedPoints >= limit);
    if (spent) throw tooManyGuesses(spent.whose, spent.limit, spent.counted!.msBeforeNext);
  }

  /** A wrong password: it counts against both budgets. */
  async wrongPassword(sessionUid: string, userUid: string): Promise<void> {
    await Promise.all([
      this.perUser.penalty(`${sessionUid}:${userUid}`).catch(ignoreRefusal),
      this.perSession.penalty(sessionUid).catch(ignoreRefusal),
    ]);
  }
}

function tooManyGuesses(whose: string, limit: number, msBeforeNext: number): ApiException {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new ApiException(
    HttpStatus.TOO_MANY_REQUESTS,
    ErrorCode.RATE_LIMITED,
    `${whose} wrong passwords for this session are used up (${limit} a minute); retry in ${retryAfter} s`,
    {},
    retryAfter,
  );
}

// A penalty past the limit answers a refusal; the count is what matters here.
const ignoreRefusal = (error: unknown) => {
  if (!(error instanceof RateLimiterRes)) throw error;
};
