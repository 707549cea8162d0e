import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { BackgroundJobs } from './background-jobs.js';
import { compactionDue, isBusy } from '../common/compaction-rule.js';
import { MetricsService } from './metrics.service.js';

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Gives back what a busy period grew once the instance is quiet. V8's own memory reducer waits for a
 * low allocation rate that an instance's pollers never let it see, and a regular collection keeps the
 * pages it emptied; a last-resort collection compacts the heap and gives them back, at the price of
 * one pause of the main thread (docs/PERFORMANCE.md, "Idle memory").
 */
@Injectable()
export class MemoryCompactor implements OnApplicationBootstrap {
  private readonly logger = new Logger(MemoryCompactor.name);
  private readonly work: number[] = [];
  private workBefore = 0;
  private rssAfterLast: number | undefined;
  private busySinceLast = false;

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.memoryCompactIdleSeconds === 0) return;
    // V8 hands out its collector only behind a flag; set here, the same way jest's leak detector does,
    // so that an operator's own `node` command line cannot silently turn compaction off.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as Collect;
    this.workBefore = this.metrics.workDone();
    this.jobs.schedule({ name: 'memory-compaction', everyMs: 1000, run: () => this.tick(collect) });
  }

  private tick(collect: Collect): void {
    const done = this.metrics.workDone();
    const second = done - this.workBefore;
    this.workBefore = done;
    this.work.push(second);
    if (this.work.length > this.config.memoryCompactIdleSeconds) this.work.shift();
    if (isBusy(second)) this.busySinceLast = true;
    const state = {
      work: this.work,
      quietSeconds: this.config.memoryCompactIdleSeconds,
      rssBytes: process.memoryUsage.rss(),
      rssAfterLast: this.rssAfterLast,
      busySinceLast: this.busySinceLast,
    };
    if (!compactionDue(state)) return;
    const started = performance.now();
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const seconds = (performance.now() - started) / 1000;
    this.rssAfterLast = process.memoryUsage.rss();
    this.busySinceLast = false;
    this.metrics.countCompaction(seconds, state.rssBytes - this.rssAfterLast);
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
    this.logger.log(
      `quiet for ${state.quietSeconds} s: heap compacted in ${(seconds * 1000).toFixed(0)} ms, resident ${mb(state.rssBytes)} MB -> ${mb(this.rssAfterLast)} MB`,
    );
  }
}
