import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundJobs } from './background-jobs.js';
import { MetricsService } from './metrics.service.js';

/** `background_job_failures_total` of `job`, as /metrics shows it. */
async function failuresOf(metrics: MetricsService, job: string): Promise<number> {
  const { values } = await metrics.registry.getSingleMetric('background_job_failures_total')!.get();
  return values.find(({ labels }) => labels.job === job)?.value ?? 0;
}

/** Waits until `condition` holds (a few seconds at most), so that no test depends on a timer's exact moment. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await condition()) && waited < 5000; waited += 5) await sleep(5);
}

const emfile = () => Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), { code: 'EMFILE' });

describe('BackgroundJobs', () => {
  // The failures are the point here: their log lines are not.
  beforeAll(() => Logger.overrideLogger(false));
  let metrics: MetricsService;
  let jobs: BackgroundJobs;
  beforeEach(() => {
    metrics = new MetricsService();
    jobs = new BackgroundJobs(metrics);
  });

  it('counts an interval whose callback throws, and runs it again: the process goes on', async () => {
    let runs = 0;
    const timer = jobs.every('throws', 1, () => {
      runs++;
      throw emfile();
    });
    try {
      await until(async () => (await failuresOf(metrics, 'throws')) >= 3);
    } finally {
      clearInterval(timer);
    }
    expect(await failuresOf(metrics, 'throws')).toBeGreaterThanOrEqual(3);
    expect(runs).toBeGreaterThanOrEqual(3);
  });

  it('counts a timer whose work rejects, by job', async () => {
    jobs.after('rejects', 1, () => Promise.reject(emfile()));
    await until(async () => (await failuresOf(metrics, 'rejects')) === 1);
    expect(await failuresOf(metrics, 'rejects')).toBe(1);
    expect(await failuresOf(metrics, 'throws')).toBe(0);
  });

  it('runs work now and settles without rejecting, whatever the work does', async () => {
    await expect(jobs.run('sync', () => 42)).resolves.toBeUndefined();
    await expect(jobs.run('async', () => Promise.resolve(42))).resolves.toBeUndefined();
    await expect(jobs.run('fails', () => Promise.reject(new Error('database away')))).resolves.toBeUndefined();
    expect(await failuresOf(metrics, 'sync')).toBe(0);
    expect(await failuresOf(metrics, 'fails')).toBe(1);
  });

  it('repeats after each run has settled, failed ones too, and stop waits for the run under way', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const job = jobs.repeat(
      'loop',
      () => 1,
      async () => {
        runs++;
        if (runs < 3) throw emfile();
        await new Promise<void>((resolve) => (release = resolve));
      },
    );
    await until(async () => runs === 3);
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await sleep(20);
    expect(stopped).toBe(false); // the third run still holds its work
    release();
    await stopping;
    await sleep(20);
    expect(runs).toBe(3); // nothing runs after stop
    expect(await failuresOf(metrics, 'loop')).toBe(2);
  });
});
