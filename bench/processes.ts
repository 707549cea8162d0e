/**
 * The processes of a benchmark run (the service, the baseline, the load generator) and what is read
 * off them while they run: resident memory and CPU time, from /proc.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { openFilesLimit } from '../src/config/open-files.js';
import type { LoadJob, LoadResult, OpenLoopAnswer } from './load.js';
import type { OpenLoopJob } from './open-loop-driver.js';

export class ManagedProcess {
  readonly exited: Promise<void>;
  private exit = '';

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
        resolve();
      }),
    );
  }

  /** Throws, with the end of its log, unless the process is still running. */
  assertRunning(): void {
    if (!this.running) throw new Error(`the ${this.name} process (pid ${this.pid}) ${this.exit || 'is gone'}:\n${this.logTail()}`);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM (a graceful shutdown, which also writes a --cpu-prof profile), SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  logTail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

/**
 * A Node.js process with its output appended to `logFile` (a file costs the server less than a pipe read
 * by us); `openFiles`: the open files it needs (see nodeCommand).
 */
export function launch(
  name: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; openFiles?: number },
): ManagedProcess {
  const output = openSync(options.logFile, 'a');
  try {
    const [command, commandArgs] = nodeCommand(args, options.openFiles);
    const child = spawn(command, commandArgs, { cwd: options.cwd, env: options.env, stdio: ['ignore', output, output] });
    return new ManagedProcess(name, child, options.logFile);
  } finally {
    closeSync(output);
  }
}

/**
 * How to run Node.js with `args` so that it may open `openFiles` files: as is when the inherited soft
 * limit allows it, else through a shell that raises the soft limit first (`exec` keeps the pid, and
 * the IPC channel of a fork). Throws when the hard limit is too low: only root can raise that.
 */
export function nodeCommand(args: string[], openFiles = 0): [string, string[]] {
  // The bench reads /proc for its figures anyway: where there is none, nothing is raised.
  const { soft, hard } = openFilesLimit() ?? { soft: Infinity, hard: Infinity };
  if (openFiles <= soft) return [process.execPath, args];
  if (openFiles > hard) {
    throw new Error(
      `${openFiles} open files needed, but the hard limit is ${hard}: raise it (LimitNOFILE, limits.conf) or ask for fewer sockets`,
    );
  }
  return ['/bin/sh', ['-c', `ulimit -n ${openFiles} && exec "$0" "$@"`, process.execPath, ...args]];
}

export async function waitUntilReady(server: ManagedProcess, url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!server.running) throw new Error(`${server.name} exited during start-up:\n${server.logTail()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${server.name} not ready after ${timeoutMs / 1000} s:\n${server.logTail()}`);
}

/** One scrape of the service's /metrics: a reader of its unlabelled series' values (NaN for one it lacks). */
export async function scrapeMetrics(url: string): Promise<(series: string) => number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return (series) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** VmRSS and VmHWM (peak resident set) of a process, in MiB. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

// USER_HZ: /proc reports CPU time in ticks of 1/100 s on Linux, whatever the kernel's own HZ.
const TICK_MS = 10;

/**
 * User plus system CPU time of a process (all its threads), in milliseconds; with `reapedChildren`,
 * plus that of its children that have exited.
 */
export function cpuMillisecondsOf(pid: number, reapedChildren = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15,
  // cutime 16, cstime 17.
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return (fields[11] + fields[12] + (reapedChildren ? fields[13] + fields[14] : 0)) * TICK_MS;
}

/**
 * CPU time of a PostgreSQL server: the postmaster and every backend it forked, running or exited (in
 * milliseconds). The backends of idle pools count too, but around one round they do nothing.
 */
export function postgresCpuMilliseconds(postmasterPid: number): number {
  let total = cpuMillisecondsOf(postmasterPid, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // ppid is field 4: the second after the command name.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmasterPid) total += cpuMillisecondsOf(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Polls a process's resident memory while a round runs; `stop()` gives the highest value seen (MiB). */
export function sampleMemory(pid: number, intervalMs = 100): { stop(): number } {
  let highest = memoryOf(pid).rss;
  const timer = setInterval(() => {
    try {
      highest = Math.max(highest, memoryOf(pid).rss);
    } catch {
      // the process is gone; keep what was seen
    }
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return highest;
    },
  };
}

/** The load generator process (bench/load.ts), one job at a time over IPC. */
export class LoadGenerator {
  private nextId = 1;
  private waiting = new Map<number, { resolve: (result: LoadResult | OpenLoopAnswer) => void; reject: (error: Error) => void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { ok?: boolean; result?: LoadResult | OpenLoopAnswer; id?: number; message?: string }) => {
      const id = message.result?.id ?? message.id;
      if (id === undefined) return;
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      if (message.ok) waiter?.resolve(message.result!);
      else waiter?.reject(new Error(`load generator: ${message.message}`));
    });
    child.on('exit', (code) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`the load generator exited (${code})`));
      this.waiting.clear();
    });
  }

  static async start(script: string, cwd: string): Promise<LoadGenerator> {
    const child = fork(script, [], { cwd, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the load generator exited during start-up (${code})`)));
    });
    return new LoadGenerator(child);
  }

  run(job: Omit<LoadJob, 'id'>): Promise<LoadResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // The answer's shape is the job's: a closed-loop job gets a LoadResult.
      this.waiting.set(id, { resolve: resolve as (result: LoadResult | OpenLoopAnswer) => void, reject });
      this.child.send({ ...job, id });
    });
  }

  /** Requests at a fixed arrival rate (bench/open-loop-driver.ts). */
  runOpenLoop(job: OpenLoopJob): Promise<OpenLoopAnswer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (result: LoadResult | OpenLoopAnswer) => void, reject });
      this.child.send({ ...job, id, openLoop: true });
    });
  }

  stop(): void {
    if (this.child.connected) this.child.disconnect();
    this.child.kill('SIGTERM');
  }
}
