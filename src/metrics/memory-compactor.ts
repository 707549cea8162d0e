import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { MetricsService } from './metrics.service.js';

/** Growth of the resident set since the last compaction below which another is not worth its pause. */
export const COMPACTION_MIN_GROWTH_BYTES = 8 * 1024 * 1024;

/** Work (requests answered, sockets opened, events sent) per second that still counts as quiet: a load balancer's health checks. */
export const QUIET_WORK_PER_SECOND = 1;

/**
 * Whether an instance should compact its heap now: it has been quiet for the last `quietSeconds`
 * (`work` holds the work of each past second, newest last) and its resident set has grown enough since
 * its last compaction, or it has not compacted since it started (the start-up's garbage).
 */
export function compactionDue(work: readonly number[], quietSeconds: number, rssBytes: number, rssAfterLast: number | undefined): boolean {
  if (quietSeconds <= 0 || work.length < quietSeconds) return false;
  const recent = work.slice(-quietSeconds).reduce((sum, count) => sum + count, 0);
  if (recent > quietSeconds * QUIET_WORK_PER_SECOND) return false;
  return rssAfterLast === undefined || rssBytes - rssAfterLast >= COMPACTION_MIN_GROWTH_BYTES;
}

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Gives back what a busy period grew once the instance is quiet. V8's own memory reducer waits for a
 * low allocation rate that an instance's pollers never let it see, and a regular collection keeps the
 * pages it emptied; a last-resort collection compacts the heap and flushes the start-up's bytecode,
 * at the price of one pause of the main thread (docs/PERFORMANCE.md, "Idle memory").
 */
@Injectable()
export class MemoryCompactor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MemoryCompactor.name);
  private timer?: NodeJS.Timeout;
  private readonly work: number[] = [];
  private workBefore = 0;
  private rssAfterLast: number | undefined;
  private collect?: Collect;

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.memoryCompactIdleSeconds === 0) return;
    // V8 hands out its collector only behind a flag; set here, the same way jest's leak detector does,
    // so that an operator's own `node` command line cannot silently turn compaction off.
    setFlagsFromString('--expose-gc');
    this.collect = runInNewContext('gc') as Collect;
    this.workBefore = this.metrics.workDone();
    this.timer = setInterval(() => this.tick(), 1000).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const done = this.metrics.workDone();
    this.work.push(done - this.workBefore);
    this.workBefore = done;
    const quietSeconds = this.config.memoryCompactIdleSeconds;
    if (this.work.length > quietSeconds) this.work.shift();
    const rss = process.memoryUsage.rss();
    if (!this.collect || !compactionDue(this.work, quietSeconds, rss, this.rssAfterLast)) return;
    const started = performance.now();
    this.collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const seconds = (performance.now() - started) / 1000;
    this.rssAfterLast = process.memoryUsage.rss();
    this.metrics.countCompaction(seconds, rss - this.rssAfterLast);
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
    this.logger.log(
      `quiet for ${quietSeconds} s: heap compacted in ${(seconds * 1000).toFixed(0)} ms, resident ${mb(rss)} MB -> ${mb(this.rssAfterLast)} MB`,
    );
  }
}
