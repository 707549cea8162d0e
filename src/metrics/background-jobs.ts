import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { MetricsService } from './metrics.service.js';

/** A failing job writes one log line a minute at most; the rest are counted, and the next line says how many. */
const LOG_EVERY_MS = 60_000;

/** How a periodic job is timed: at a fixed rate, or a pause after each run has settled. */
export type JobTiming =
  /** A run starts every `everyMs`; a moment that finds the last run still going passes (the next one comes at the rate). */
  | { everyMs: number }
  /** The next run starts `pauseMs()` after the last one settled (read each time: a backlog may ask for 0). */
  | { pauseMs: () => number };

/** A periodic job, as its owner registers it (BackgroundJobs.schedule). */
export type PeriodicJob = JobTiming & {
  /** Its log lines and the `job` label of its metrics. */
  name: string;
  /** False leaves it unscheduled: the configuration turned it off. */
  enabled?: boolean;
  /** When the first run starts; one period from now unless said. */
  firstRunInMs?: number;
  /**
   * One run. `stopping` is aborted once the job is stopped (or the application shuts down): a long run
   * ends early at it, and shutdown waits for it either way.
   */
  run: (stopping: AbortSignal) => unknown;
};

/** The `stopping` of a run called directly (a test, an admin action): nothing stops it. */
export const NOT_STOPPING: AbortSignal = new AbortController().signal;

/** A job that is scheduled. */
export interface ScheduledJob {
  /** Schedules no further run, and waits for the one under way (its transaction commits or rolls back). */
  stop(): Promise<void>;
}

/**
 * The one way work runs outside a request: periodic jobs, timers and loops. Whatever a job throws or
 * rejects with is logged and counted (`background_job_failures_total{job}`, beside
 * `background_job_runs_total{job}`), and never reaches the process: an exception thrown in a timer
 * callback ends a Node.js process, and a process short of file descriptors (EMFILE) throws from calls
 * as plain as `process.memoryUsage.rss()`. A periodic job never overlaps itself, and the application's
 * shutdown stops every one of them and waits for their runs in flight before any module closes what
 * they use (the pool, the fan-out, Redis). A worker keeps only its work: a method that does one run.
 * The timers never keep a process alive on their own (tests, scripts).
 *
 * Our own rather than @nestjs/schedule: its SchedulerRegistry holds bare setInterval handles, with no
 * overlap guard, no wait for a run in flight when it stops them, no failure count, and its decorators
 * take their intervals at compile time where ours come from the configuration.
 */
@Injectable()
export class BackgroundJobs implements BeforeApplicationShutdown {
  private readonly logger = new Logger('BackgroundJobs');
  private readonly failures = new Map<string, { loggedAt: number; unlogged: number }>();
  private readonly scheduled = new Map<string, ScheduledJob>();
  private shuttingDown = false;

  constructor(private readonly metrics: MetricsService) {}

  /**
   * Runs `job.run` on its timing until stopped. Register in onApplicationBootstrap (or whenever the job
   * starts to apply, e.g. a fallback); a job of the same name must have been stopped first.
   */
  schedule(job: PeriodicJob): ScheduledJob {
    if (job.enabled === false || this.shuttingDown) return STOPPED;
    if (this.scheduled.has(job.name)) throw new Error(`the background job ${job.name} is scheduled already`);
    const stopping = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    const start = () => {
      if (running || stopping.signal.aborted) return;
      running = this.run(job.name, () => job.run(stopping.signal)).finally(() => {
        running = undefined;
        if ('pauseMs' in job) next(job.pauseMs());
      });
    };
    const next = (ms: number) => {
      if (!stopping.signal.aborted) timer = setTimeout(start, ms).unref();
    };
    const first = job.firstRunInMs ?? ('everyMs' in job ? job.everyMs : job.pauseMs());
    if ('everyMs' in job) {
      timer = setTimeout(() => {
        if (stopping.signal.aborted) return;
        timer = setInterval(start, job.everyMs).unref();
        start();
      }, first).unref();
    } else next(first);
    const handle: ScheduledJob = {
      stop: async () => {
        stopping.abort();
        clearTimeout(timer);
        clearInterval(timer);
        if (this.scheduled.get(job.name) === handle) this.scheduled.delete(job.name);
        await running;
      },
    };
    this.scheduled.set(job.name, handle);
    return handle;
  }

  /**
   * Before any module's onApplicationShutdown (and before the HTTP server closes): no job starts again,
   * and the runs under way finish while the pool, the fan-out and Redis are still there.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.scheduled.values()].map((job) => job.stop()));
  }

  /** Runs `work` now; settles once it has, never rejecting. */
  run(job: string, work: () => unknown): Promise<void> {
    this.metrics.countJobRun(job);
    try {
      const result = work();
      if (result instanceof Promise) return result.then(noop, (error: unknown) => this.failed(job, error));
    } catch (error) {
      this.failed(job, error);
    }
    return DONE;
  }

  /** Runs `work` once, `ms` from now: a one-shot (a deadline, a retry's back-off), not a periodic job. */
  after(job: string, ms: number, work: () => unknown): NodeJS.Timeout {
    return setTimeout(() => void this.run(job, work), ms).unref();
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
const STOPPED: ScheduledJob = { stop: () => DONE };
