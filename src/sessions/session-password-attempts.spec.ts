import { ThrottlerStorageService } from '@nestjs/throttler';
import type { AppConfig } from '../config/environment.js';
import { SessionPasswordAttempts } from './session-password-attempts.js';

describe('SessionPasswordAttempts, on the rate limits’ in-memory storage', () => {
  let storage: ThrottlerStorageService;
  let attempts: SessionPasswordAttempts;

  beforeEach(() => {
    storage = new ThrottlerStorageService();
    attempts = new SessionPasswordAttempts({ sessionPasswordAttempts: { perUser: 3, perSession: 5 } } as AppConfig, storage);
  });

  afterEach(() => storage.onApplicationShutdown());

  const guessWrong = async (session: string, user: string) => {
    await attempts.requireAttemptsLeft(session, user);
    await attempts.wrongPassword(session, user);
  };

  it('refuses a player past their wrong guesses, with the seconds to wait, and no one else', async () => {
    for (let guess = 0; guess < 3; guess++) await guessWrong('s1', 'u1');
    const refusal = attempts.requireAttemptsLeft('s1', 'u1');
    await expect(refusal).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    const { retryAfterSeconds } = (await refusal.catch((error: unknown) => error)) as { retryAfterSeconds: number };
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    await expect(attempts.requireAttemptsLeft('s1', 'u2')).resolves.toBeUndefined();
    await expect(attempts.requireAttemptsLeft('s2', 'u1')).resolves.toBeUndefined();
  });

  it('refuses everyone once the session’s wrong guesses are spent by all together', async () => {
    for (const user of ['u1', 'u1', 'u2', 'u2', 'u3']) await guessWrong('s1', user);
    await expect(attempts.requireAttemptsLeft('s1', 'u4')).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining("this session's wrong passwords"),
    });
  });

  it('counts only wrong guesses: looking does not spend one', async () => {
    for (let look = 0; look < 10; look++) await attempts.requireAttemptsLeft('s1', 'u1');
    for (let guess = 0; guess < 2; guess++) await guessWrong('s1', 'u1');
    await expect(attempts.requireAttemptsLeft('s1', 'u1')).resolves.toBeUndefined();
  });
});
