import { Injectable, Logger } from '@nestjs/common';
import { MetricsService } from './metrics.service.js';

/** A failing job writes one log line a minute at most; the rest are counted, and the next line says how many. */
const LOG_EVERY_MS = 60_000;

/** A job that runs again and again (BackgroundJobs.repeat). */
export interface RepeatingJob {
  /** Schedules no further run, and waits for the one under way (its transaction commits or rolls back). */
  stop(): Promise<void>;
}

/**
 * The one way work runs outside a request: timers, intervals and loops. Whatever a job throws or
 * rejects with is logged and counted (`background_job_failures_total{job}`), and never reaches the
 * process: an exception thrown in a timer callback ends a Node.js process, and a process short of file
 * descriptors (EMFILE) throws from calls as plain as `process.memoryUsage.rss()`. A job keeps only its
 * own work; when it fails, the next run (or the job's own retry) tries again. The timers never keep a
 * process alive on their own (tests, scripts).
 */
@Injectable()
export class BackgroundJobs {
  private readonly logger = new Logger('BackgroundJobs');
  private readonly failures = new Map<string, { loggedAt: number; unlogged: number }>();

  constructor(private readonly metrics: MetricsService) {}

  /** Runs `work` now; settles once it has, never rejecting. */
  run(job: string, work: () => unknown): Promise<void> {
    try {
      const result = work();
      if (result instanceof Promise) return result.then(noop, (error: unknown) => this.failed(job, error));
    } catch (error) {
      this.failed(job, error);
    }
    return DONE;
  }

  /** Runs `work` once, `ms` from now. */
  after(job: string, ms: number, work: () => unknown): NodeJS.Timeout {
    return setTimeout(() => void this.run(job, work), ms).unref();
  }

  /** Runs `work` every `ms` (runs of slow async work may overlap: a job that must not guards itself). */
  every(job: string, ms: number, work: () => unknown): NodeJS.Timeout {
    return setInterval(() => void this.run(job, work), ms).unref();
  }

  /** Runs `work` `delayMs()` from now, and again `delayMs()` after each run has settled, until stopped. */
  repeat(job: string, delayMs: () => number, work: () => unknown): RepeatingJob {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    const schedule = () => {
      if (stopped) return;
      timer = this.after(job, delayMs(), () => {
        running = this.run(job, work).finally(schedule);
      });
    };
    schedule();
    return {
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  }

  private failed(job: string, error: unknown): void {
    this.metrics.countJobFailure(job);
    const now = Date.now();
    const state = this.failures.get(job);
    if (state && now - state.loggedAt < LOG_EVERY_MS) {
      state.unlogged++;
      return;
    }
    const since = state?.unlogged ? ` (and ${state.unlogged} more time(s) since the last line)` : '';
    this.failures.set(job, { loggedAt: now, unlogged: 0 });
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn({ err: error }, `${job} failed${since}: ${message}`);
  }
}

const DONE = Promise.resolve();
const noop = () => undefined;
