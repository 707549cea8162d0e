import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { TransactionHorizon } from './transaction-horizon.js';

const jobs = new BackgroundJobs(new MetricsService());

/** An xmin the test answers by hand: each poll waits until `answer` gives its value. */
function handXmin() {
  const asked: Array<(xmin: bigint) => void> = [];
  return {
    get polls() {
      return asked.length;
    },
    read: () => new Promise<bigint>((resolve) => asked.push(resolve)),
    /** Answers the next poll (waiting for it to come) with `xmin`, and lets its waiters see it. */
    async answer(xmin: bigint, polls: number): Promise<void> {
      for (let waited = 0; asked.length < polls && waited < 2000; waited += 1) await sleep(1);
      asked[polls - 1](xmin);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** Which of `promises` have settled, and how. */
function states(promises: Array<Promise<void>>): Array<'waiting' | 'passed' | 'failed'> {
  const seen: Array<'waiting' | 'passed' | 'failed'> = promises.map(() => 'waiting');
  promises.forEach((promise, index) =>
    promise.then(
      () => (seen[index] = 'passed'),
      () => (seen[index] = 'failed'),
    ),
  );
  return seen;
}

describe('TransactionHorizon', () => {
  it('lets each waiter go once every older transaction has ended, with one poll for all of them', async () => {
    const xmin = handXmin();
    const horizon = new TransactionHorizon(xmin.read, 1, jobs);
    const seen = states([horizon.passed(6n), horizon.passed(10n), horizon.passed(7n)]);
    await xmin.answer(5n, 1);
    expect(seen).toEqual(['waiting', 'waiting', 'waiting']); // the transactions before 6, 7 and 10 may still run
    await xmin.answer(8n, 2);
    expect(seen).toEqual(['passed', 'waiting', 'passed']);
    await xmin.answer(12n, 3);
    expect(seen).toEqual(['passed', 'passed', 'passed']);
    expect(xmin.polls).toBe(3);
    expect(horizon.size).toBe(0);
  });

  it('does not poll while nobody waits', async () => {
    const xmin = handXmin();
    const horizon = new TransactionHorizon(xmin.read, 1, jobs);
    await sleep(10);
    expect(xmin.polls).toBe(0);
    const passed = horizon.passed(10n);
    await xmin.answer(20n, 1);
    await passed;
    await sleep(10);
    expect(xmin.polls).toBe(1);
  });

  it('fails every waiter when the database cannot say, and polls again for the next one', async () => {
    let failing = true;
    let polls = 0;
    const horizon = new TransactionHorizon(
      () => {
        polls++;
        return failing ? Promise.reject(new Error('timeout exceeded when trying to connect')) : Promise.resolve(100n);
      },
      1,
      jobs,
    );
    const waiting = [horizon.passed(10n), horizon.passed(11n)];
    await expect(Promise.allSettled(waiting)).resolves.toEqual([
      { status: 'rejected', reason: new Error('timeout exceeded when trying to connect') },
      { status: 'rejected', reason: new Error('timeout exceeded when trying to connect') },
    ]);
    expect(polls).toBe(1);
    failing = false;
    await expect(horizon.passed(12n)).resolves.toBeUndefined();
    expect(polls).toBe(2);
  });

  it('lets everyone go when released, and any later waiter at once, without polling again', async () => {
    const xmin = handXmin();
    const horizon = new TransactionHorizon(xmin.read, 1, jobs);
    const seen = states([horizon.passed(10n), horizon.passed(11n)]);
    await xmin.answer(1n, 1);
    for (let waited = 0; xmin.polls < 2 && waited < 2000; waited += 1) await sleep(1);
    horizon.release(); // the second poll is still out
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['passed', 'passed']);
    await xmin.answer(1n, 2);
    await expect(horizon.passed(50n)).resolves.toBeUndefined();
    await sleep(10);
    expect(xmin.polls).toBe(2);
    expect(horizon.size).toBe(0);
  });
});
