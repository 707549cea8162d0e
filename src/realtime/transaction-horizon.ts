import type { BackgroundJobs } from '../metrics/background-jobs.js';

/** One inbox reader waiting for the transactions older than `xid` to end. */
interface Waiter {
  xid: bigint;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Waits, for every held-back inbox reader of an instance at once, until the transactions older than a
 * given one have ended: one statement (PostgreSQL's snapshot xmin) polled at a short interval while
 * anyone waits, none otherwise. Each reader backing off on its own overslept the end it waited for by
 * up to as long again, and re-read its inbox at every try; here a reader goes on within one interval
 * of that end, and the database answers one statement whatever the number of readers held
 * (docs/PERFORMANCE.md).
 */
export class TransactionHorizon {
  private waiters: Waiter[] = [];
  /** A poll is scheduled or running: never two at once. */
  private polling = false;
  private timer: NodeJS.Timeout | undefined;
  private released = false;

  constructor(
    /** PostgreSQL's snapshot xmin: every transaction with a lower xid has ended. */
    private readonly xmin: () => Promise<bigint>,
    private readonly intervalMs: number,
    private readonly jobs: BackgroundJobs,
  ) {}

  /** Settles once every transaction older than `xid` has ended; rejects if the database could not say. */
  passed(xid: bigint): Promise<void> {
    if (this.released) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ xid, resolve, reject });
      this.schedule();
    });
  }

  /** Lets every waiter go, now and from now on: the instance is stopping. */
  release(): void {
    this.released = true;
    clearTimeout(this.timer);
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) waiter.resolve();
  }

  /** Readers waiting now. */
  get size(): number {
    return this.waiters.length;
  }

  private schedule(): void {
    if (this.polling || this.released || this.waiters.length === 0) return;
    this.polling = true;
    this.timer = this.jobs.after('transaction-horizon', this.intervalMs, () => this.poll());
  }

  private async poll(): Promise<void> {
    let xmin: bigint;
    try {
      xmin = await this.xmin();
    } catch (error) {
      // Each reader then takes its own way back (RealtimeHub retries a failed read, waiting longer).
      const failed = this.waiters;
      this.waiters = [];
      this.polling = false;
      for (const waiter of failed) waiter.reject(error as Error);
      return;
    }
    if (this.released) return;
    const waiting: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.xid < xmin) waiter.resolve();
      else waiting.push(waiter);
    }
    this.waiters = waiting;
    this.polling = false;
    this.schedule();
  }
}
