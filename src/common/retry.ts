import { setTimeout as sleep } from 'node:timers/promises';
import { QueryFailedError } from 'typeorm';

/** serialization_failure and deadlock_detected: the transaction did nothing and may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);

export function isRetryable(error: unknown): boolean {
  return error instanceof QueryFailedError && RETRYABLE.has((error.driverError as { code?: string }).code ?? '');
}

/**
 * Runs `work` (one whole database transaction) again when PostgreSQL aborted it as a serialization
 * failure or deadlock, a bounded number of times with a short jittered pause, so that contention shows
 * as latency rather than errors. The last failure is thrown as it is (the filter maps it to 409).
 */
export async function withRetry<T>(work: () => Promise<T>, onRetry: () => void = () => undefined, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
      onRetry();
      await sleep(Math.random() * 10 * attempt);
    }
  }
}

/**
 * How long to wait before try `attempt` (1: the first retry) of work that failed for want of a
 * resource (the pool busy, the database away): `firstMs` doubling each time up to `lastMs`, and of that
 * a random share between half and all ("equal jitter"), so that the callers a failure struck together
 * do not all come back at the same moment. Never over `lastMs`, never under half of `firstMs`.
 */
export function backoffDelay(attempt: number, firstMs: number, lastMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(firstMs * 2 ** Math.max(0, attempt - 1), lastMs);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
