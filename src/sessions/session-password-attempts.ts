import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import { ApiException, ErrorCode } from '../common/errors.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';

const MINUTE_MS = 60_000;
/** The throttler name and key prefix of these counters, apart from the request budgets'. */
const PREFIX = 'session-password';

interface GuessBudget {
  key: string;
  limit: number;
  whose: string;
}

/**
 * Wrong join passwords, counted per (session, user) and per session over a minute, so that a short
 * PIN cannot be guessed (and every guess costs the service an scrypt hash): past either budget the
 * join is refused with 429 before the password is even hashed. The counters live in the rate limits'
 * storage (SecurityModule's ThrottlerStorage: Redis when REDIS_URL is set, so that every instance
 * counts together, this instance's memory otherwise and while Redis is away). That storage can only
 * count up, and a join must look before it counts: so the guess that spends a budget's last also sets
 * a mark on it (a key over a limit of 0, blocked until the count's window ends), and a join reads the
 * mark with an increment that no limit refuses, which the storage answers as blocked while it lasts.
 */
@Injectable()
export class SessionPasswordAttempts {
  private readonly perUser: number;
  private readonly perSession: number;

  constructor(
    @InjectConfig() config: AppConfig,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
  ) {
    this.perUser = config.sessionPasswordAttempts.perUser;
    this.perSession = config.sessionPasswordAttempts.perSession;
  }

  /** 429 when the user, or everyone together, has used up the session's wrong guesses of the minute. */
  async requireAttemptsLeft(sessionUid: string, userUid: string): Promise<void> {
    const budgets = this.budgetsOf(sessionUid, userUid);
    const marks = await Promise.all(
      budgets.map(({ key }) => this.storage.increment(`${key}:used-up`, MINUTE_MS, Number.MAX_SAFE_INTEGER, MINUTE_MS, PREFIX)),
    );
    const spent = marks.findIndex((mark) => mark.isBlocked);
    if (spent >= 0) throw tooManyGuesses(budgets[spent], marks[spent].timeToBlockExpire);
  }

  /** A wrong password: it counts against both budgets. */
  async wrongPassword(sessionUid: string, userUid: string): Promise<void> {
    await Promise.all(
      this.budgetsOf(sessionUid, userUid).map(async ({ key, limit }) => {
        const { totalHits, timeToExpire } = await this.storage.increment(key, MINUTE_MS, limit, 0, PREFIX);
        if (totalHits >= limit) await this.storage.increment(`${key}:used-up`, MINUTE_MS, 0, Math.max(1, timeToExpire) * 1000, PREFIX);
      }),
    );
  }

  private budgetsOf(sessionUid: string, userUid: string): GuessBudget[] {
    return [
      { key: `${PREFIX}:user:${sessionUid}:${userUid}`, limit: this.perUser, whose: 'your' },
      { key: `${PREFIX}:session:${sessionUid}`, limit: this.perSession, whose: "this session's" },
    ];
  }
}

function tooManyGuesses({ whose, limit }: GuessBudget, secondsLeft: number): ApiException {
  const retryAfter = Math.max(1, secondsLeft);
  return new ApiException(
    HttpStatus.TOO_MANY_REQUESTS,
    ErrorCode.RATE_LIMITED,
    `${whose} wrong passwords for this session are used up (${limit} a minute); retry in ${retryAfter} s`,
    {},
    retryAfter,
  );
}
