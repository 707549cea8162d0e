import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundJobs } from './background-jobs.js';
import { MetricsService } from './metrics.service.js';

/** `background_job_failures_total` of `job`, as /metrics shows it. */
async function failuresOf(metrics: MetricsService, job: string): Promise<number> {
  const { values } = await metrics.registry.getSingleMetric('background_job_failures_total')!.get();
  return values.find(({ labels }) => labels.job === job)?.value ?? 0;
}

/** `background_job_runs_total` of `job`. */
async function runsOf(metrics: MetricsService, job: string): Promise<number> {
  const { values } = await metrics.registry.getSingleMetric('background_job_runs_total')!.get();
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

  it('counts a periodic job whose run throws, and runs it again: the process goes on', async () => {
    let runs = 0;
    const job = jobs.schedule({
      name: 'throws',
      everyMs: 1,
      run: () => {
        runs++;
        throw emfile();
      },
    });
    try {
      await until(async () => (await failuresOf(metrics, 'throws')) >= 3);
    } finally {
      await job.stop();
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

  /** Lets `periods` runs of a 1 ms job go by: that many timer periods have passed, whatever the machine's speed. */
  async function periodsPass(periods: number): Promise<void> {
    let runs = 0;
    const witness = jobs.schedule({ name: 'witness', everyMs: 1, run: () => runs++ });
    await until(async () => runs >= periods);
    await witness.stop();
  }

  it('pauses after each run has settled, failed ones too, and stop waits for the run under way', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const job = jobs.schedule({
      name: 'loop',
      pauseMs: () => 1,
      run: async () => {
        runs++;
        if (runs < 3) throw emfile();
        await new Promise<void>((resolve) => (release = resolve));
      },
    });
    await until(async () => runs === 3);
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await periodsPass(5);
    expect(stopped).toBe(false); // the third run still holds its work
    release();
    await stopping;
    await periodsPass(5);
    expect(runs).toBe(3); // nothing runs after stop
    expect(await failuresOf(metrics, 'loop')).toBe(2);
  });

  it('never starts a run of a job while its last one runs, however many periods go by', async () => {
    let runs = 0;
    let running = 0;
    let mostAtOnce = 0;
    let release: () => void = () => undefined;
    const job = jobs.schedule({
      name: 'slow',
      everyMs: 1,
      run: async () => {
        runs++;
        mostAtOnce = Math.max(mostAtOnce, ++running);
        await new Promise<void>((resolve) => (release = resolve));
        running--;
      },
    });
    await until(async () => runs === 1);
    await periodsPass(10);
    expect(runs).toBe(1);
    release();
    await until(async () => runs === 2); // the rate goes on once the run is over
    release();
    await job.stop();
    expect(mostAtOnce).toBe(1);
  });

  it('counts a failing run and keeps the job running', async () => {
    let runs = 0;
    const job = jobs.schedule({
      name: 'flaky',
      everyMs: 1,
      run: () => {
        runs++;
        if (runs % 2 === 1) throw emfile();
      },
    });
    await until(async () => runs >= 4);
    await job.stop();
    expect(await failuresOf(metrics, 'flaky')).toBe(Math.ceil(runs / 2));
    expect(await runsOf(metrics, 'flaky')).toBe(runs);
  });

  it('on shutdown, tells the run in flight to stop, waits for it, and starts no job again', async () => {
    let runs = 0;
    let toldToStop = false;
    let release: () => void = () => undefined;
    jobs.schedule({
      name: 'sweep',
      pauseMs: () => 1,
      firstRunInMs: 0,
      run: async (stopping) => {
        runs++;
        await new Promise<void>((resolve) => (release = resolve));
        toldToStop = stopping.aborted;
      },
    });
    await until(async () => runs === 1);
    let shutDown = false;
    const shutdown = jobs.beforeApplicationShutdown().then(() => (shutDown = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(shutDown).toBe(false);
    release();
    await shutdown;
    expect(toldToStop).toBe(true);
    let lateRuns = 0;
    jobs.schedule({ name: 'late', everyMs: 1, firstRunInMs: 0, run: () => lateRuns++ });
    await sleep(20);
    expect(lateRuns).toBe(0);
    expect(runs).toBe(1);
  });

  it('leaves a job the configuration turned off unscheduled, and refuses a name scheduled twice', async () => {
    let runs = 0;
    jobs.schedule({ name: 'off', enabled: false, everyMs: 1, firstRunInMs: 0, run: () => runs++ });
    const on = jobs.schedule({ name: 'on', everyMs: 1000, run: () => undefined });
    expect(() => jobs.schedule({ name: 'on', everyMs: 1, run: () => undefined })).toThrow('scheduled already');
    await on.stop();
    await jobs.schedule({ name: 'on', everyMs: 1000, run: () => undefined }).stop(); // stopped: the name is free again
    await periodsPass(5);
    expect(runs).toBe(0);
  });
});
