/**
 * Connected players on one instance (issue 32, goal 1): thousands of authenticated idle sockets, what
 * they cost the service in memory and in keep-alive pings, and a stream of events fanned out to them.
 * The sockets come from loader processes (bench/socket-loader.ts), each on loopback source addresses
 * of its own (Linux routes all of 127/8 to lo), so that neither their CPU nor the ephemeral ports of
 * one address limit what is measured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { loadavg } from './leaderboards.js';
import { cpuMillisecondsOf, memoryOf, nodeCommand, scrapeMetrics } from './processes.js';
import type { SeededUser } from './seed.js';
import type { LoaderReport, LoaderRequest, OpenResult, SocketSpec } from './socket-loader.js';
import { percentile } from './realtime.js';

export interface SocketsReport {
  sockets: number;
  opened: number;
  /** Sockets that did not open, by reason; and sockets the service closed afterwards, by close code. */
  failures: Record<string, number>;
  closedByServer: Record<string, number>;
  openSeconds: number;
  /** Service CPU per socket opened (the upgrade, its check, the ticket's issue and use, the first frame). */
  openCpuMsPerSocket: number;
  loaders: number;
  localAddresses: number;
  rssBeforeMb: number;
  rssIdleMb: number;
  rssPerIdleSocketKb: number;
  /** The compaction the service ran once quiet after the sockets opened (MEMORY_COMPACT_IDLE): its pause, if it ran. */
  compactionMs: number | undefined;
  /** Service CPU in the SETTLE_MS after it, before the pings' window. */
  settle: { seconds: number; cpuMs: number };
  /** Service CPU over an idle window as long as a ping interval, as a share of one core. */
  idle: {
    seconds: number;
    pingIntervalMs: number;
    cpuMs: number;
    coreShare: number;
    eventLoopDelayMs: { p99: number; max: number };
    loadavg: string;
  };
  fanout: {
    awardsPerSecond: number;
    seconds: number;
    awards: { sent: number; ok: number; other: number; statuses: Record<string, number>; p50: number; p99: number; max: number };
    events: number;
    framesExpected: number;
    framesReceived: number;
    /** Sockets that received fewer frames than their user was sent events. */
    socketsShort: number;
    latencyMs: { p50: number; p99: number; max: number };
    serviceCpuMsPerEvent: number;
    eventLoopDelayMs: { p99: number; max: number };
    loadavg: string;
  };
  rssPeakMb: number;
}

interface Options {
  url: string;
  pid: number;
  pool: pg.Pool;
  /** The players whose sockets open: `socketsPerPlayer` each, every player with one persona. */
  players: SeededUser[];
  socketsPerPlayer: number;
  sockets: number;
  tokenOf: (user: SeededUser) => string;
  adminToken: string;
  itemUid: string;
  loaders: number;
  addressesPerLoader: number;
  pingIntervalMs: number;
  awardsPerSecond: number;
  seconds: number;
  log: (message: string) => void;
}

/**
 * The service's event-loop delay since the last call, in ms (prom-client's monitor, which each scrape
 * of /metrics resets): how long the service kept everything else waiting, the pings' round above all.
 */
async function eventLoopDelayMs(url: string): Promise<{ p99: number; max: number }> {
  const seconds = await scrapeMetrics(url);
  return {
    p99: Math.round(seconds('nodejs_eventloop_lag_p99_seconds') * 1000),
    max: Math.round(seconds('nodejs_eventloop_lag_max_seconds') * 1000),
  };
}

const SETTLE_MS = 20_000;

/** The service's compactions of its heap so far, and their pauses' total (memory-compactor.ts). */
async function compactions(url: string): Promise<{ count: number; seconds: number }> {
  const figure = await scrapeMetrics(url);
  return { count: figure('memory_compaction_pause_seconds_count'), seconds: figure('memory_compaction_pause_seconds_sum') };
}

/**
 * Waits for the service to compact its heap once it is quiet, so that its resident set is measured at
 * rest and the compaction's pause stays out of the pings' window. Polled every 2 s: a scrape is a
 * request, and more than one a second would keep the service from being quiet.
 */
async function compacted(url: string, since: { count: number; seconds: number }): Promise<number | undefined> {
  for (let waited = 0; waited < 20_000; waited += 2000) {
    await sleep(2000);
    const now = await compactions(url);
    if (now.count > since.count) return Math.round((now.seconds - since.seconds) * 1000);
  }
  return undefined;
}

/** Open files a loader needs beyond its sockets (Node.js itself, the IPC channel, fetch's connections). */
const LOADER_FILES_SPARE = 200;

class Loader {
  private readonly waiting: Array<(message: OpenResult | LoaderReport) => void> = [];
  readonly exited: Promise<void>;

  constructor(private readonly child: ChildProcess) {
    child.on('message', (message: OpenResult | LoaderReport | { kind: 'ready' }) => {
      if (message.kind !== 'ready') this.waiting.shift()?.(message);
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async start(root: string, sockets: number): Promise<Loader> {
    const [command, args] = nodeCommand(['--import', 'tsx', join(root, 'bench', 'socket-loader.ts')], sockets + LOADER_FILES_SPARE);
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`a socket loader exited during start-up (${code})`)));
    });
    return new Loader(child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  ask<T extends OpenResult | LoaderReport>(request: LoaderRequest): Promise<T> {
    return new Promise((resolve) => {
      this.waiting.push(resolve as (message: OpenResult | LoaderReport) => void);
      this.child.send(request);
    });
  }

  async stop(): Promise<void> {
    if (this.child.connected) this.child.send({ kind: 'close' } satisfies LoaderRequest);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

export async function measureSockets(root: string, options: Options): Promise<SocketsReport> {
  const { url, pid, pool, log } = options;
  // Socket i is the (i mod socketsPerPlayer)th of player i / socketsPerPlayer; even ones by header,
  // odd ones by ticket; loader i % loaders opens it, so that each player's sockets spread over loaders
  // as a player's devices would.
  const specs: Array<SocketSpec & { loader: number }> = Array.from({ length: options.sockets }, (_, index) => {
    const player = options.players[Math.floor(index / options.socketsPerPlayer)];
    return { userUid: player.uid, token: options.tokenOf(player), byTicket: index % 2 === 1, loader: index % options.loaders };
  });
  const byLoader = Array.from({ length: options.loaders }, (_, loader) => specs.filter((spec) => spec.loader === loader));
  const loaders = await Promise.all(byLoader.map((own) => Loader.start(root, own.length)));
  try {
    await compacted(url, { count: 0, seconds: 0 });
    const rssBeforeMb = memoryOf(pid).rss;
    const beforeOpening = await compactions(url);
    log(`opening ${options.sockets} sockets from ${options.loaders} loaders (half by header, half by ticket)`);
    const started = Date.now();
    const openCpuBefore = cpuMillisecondsOf(pid);
    const results = await Promise.all(
      loaders.map((loader, index) =>
        loader.ask<OpenResult>({
          kind: 'open',
          url,
          localAddresses: Array.from(
            { length: options.addressesPerLoader },
            (_, n) => `127.0.0.${2 + index * options.addressesPerLoader + n}`,
          ),
          sockets: byLoader[index].map(({ userUid, token, byTicket }) => ({ userUid, token, byTicket })),
          concurrency: 32,
        }),
      ),
    );
    const openSeconds = (Date.now() - started) / 1000;
    const openCpuMs = cpuMillisecondsOf(pid) - openCpuBefore;
    const opened = results.reduce((sum, result) => sum + result.opened, 0);
    const failures: Record<string, number> = {};
    for (const result of results) for (const [reason, n] of Object.entries(result.failures)) failures[reason] = (failures[reason] ?? 0) + n;
    log(`  ${opened} of ${options.sockets} open in ${openSeconds.toFixed(1)} s; failures ${JSON.stringify(failures)}`);

    const compactionMs = await compacted(url, beforeOpening);
    const rssIdleMb = memoryOf(pid).rss;
    // V8 follows a compaction with collections of its own (its memory reducer) for some seconds: a
    // one-off cost of the quiet after a busy period, measured apart from the pings' steady one.
    const settleCpuBefore = cpuMillisecondsOf(pid);
    await sleep(SETTLE_MS);
    const settleCpuMs = cpuMillisecondsOf(pid) - settleCpuBefore;
    log(`idle: service CPU over one ping interval (${options.pingIntervalMs} ms)`);
    await eventLoopDelayMs(url);
    const idleCpuBefore = cpuMillisecondsOf(pid);
    await sleep(options.pingIntervalMs);
    const idleCpuMs = cpuMillisecondsOf(pid) - idleCpuBefore;
    const idleDelay = await eventLoopDelayMs(url);
    const idleLoad = loadavg();

    log(`fan-out: ${options.awardsPerSecond} awards a second for ${options.seconds} s`);
    const { rows } = await pool.query<{ last: string }>('SELECT coalesce(max(id), 0)::text AS last FROM notifications');
    await eventLoopDelayMs(url);
    const fanoutCpuBefore = cpuMillisecondsOf(pid);
    const awards = await award(options);
    const fanoutCpuMs = cpuMillisecondsOf(pid) - fanoutCpuBefore;
    const fanoutDelay = await eventLoopDelayMs(url);
    const fanoutLoad = loadavg();
    // Every event to a user reaches each of their sockets: the inbox says what each should receive.
    const written = await pool.query<{ userUid: string; events: number }>(
      'SELECT "userUid", count(*)::int AS events FROM notifications WHERE id > $1::bigint GROUP BY "userUid"',
      [rows[0].last],
    );
    const eventsOf = new Map(written.rows.map((row) => [row.userUid, row.events]));
    const events = written.rows.reduce((sum, row) => sum + row.events, 0);
    const ask = () => Promise.all(loaders.map((loader) => loader.ask<LoaderReport>({ kind: 'report' })));
    let reports = await ask();
    // What each open socket should have received; a socket that did not open counts as a failure above.
    const expected = reports.map((report, loader) =>
      byLoader[loader].map((spec, index) => ((report.frames[index] ?? -1) < 0 ? 0 : (eventsOf.get(spec.userUid) ?? 0))),
    );
    const framesExpected = expected.flat().reduce((sum, n) => sum + n, 0);
    for (let waited = 0; waited < 15_000; waited += 250) {
      if (reports.reduce((sum, report) => sum + report.latenciesMs.length, 0) >= framesExpected) break;
      await sleep(250);
      reports = await ask();
    }
    let socketsShort = 0;
    const closedByServer: Record<string, number> = {};
    reports.forEach((report, loader) => {
      expected[loader].forEach((n, index) => {
        if (Math.max(0, report.frames[index] ?? 0) < n) socketsShort += 1;
      });
      for (const [code, n] of Object.entries(report.closed)) closedByServer[code] = (closedByServer[code] ?? 0) + n;
    });
    const latencies = reports.flatMap((report) => report.latenciesMs).sort((a, b) => a - b);
    return {
      sockets: options.sockets,
      opened,
      failures,
      closedByServer,
      openSeconds: Number(openSeconds.toFixed(1)),
      openCpuMsPerSocket: Number((openCpuMs / Math.max(1, opened)).toFixed(2)),
      loaders: options.loaders,
      localAddresses: options.loaders * options.addressesPerLoader,
      rssBeforeMb: Math.round(rssBeforeMb),
      rssIdleMb: Math.round(rssIdleMb),
      rssPerIdleSocketKb: Number((((rssIdleMb - rssBeforeMb) * 1024) / Math.max(1, opened)).toFixed(1)),
      compactionMs,
      settle: { seconds: SETTLE_MS / 1000, cpuMs: settleCpuMs },
      idle: {
        seconds: options.pingIntervalMs / 1000,
        pingIntervalMs: options.pingIntervalMs,
        cpuMs: idleCpuMs,
        coreShare: Number((idleCpuMs / options.pingIntervalMs).toFixed(4)),
        eventLoopDelayMs: idleDelay,
        loadavg: idleLoad,
      },
      fanout: {
        awardsPerSecond: options.awardsPerSecond,
        seconds: options.seconds,
        awards,
        events,
        framesExpected,
        framesReceived: latencies.length,
        socketsShort,
        latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN },
        serviceCpuMsPerEvent: Number((fanoutCpuMs / Math.max(1, events)).toFixed(3)),
        eventLoopDelayMs: fanoutDelay,
        loadavg: fanoutLoad,
      },
      rssPeakMb: Math.round(memoryOf(pid).peak),
    };
  } finally {
    await Promise.all(loaders.map((loader) => loader.stop()));
  }
}

/** Admin awards of one gold coin at a steady rate, to the players' personas in turn; their answers timed. */
async function award(options: Options): Promise<SocketsReport['fanout']['awards']> {
  const players = options.players.slice(0, Math.ceil(options.sockets / options.socketsPerPlayer));
  const durations: number[] = [];
  let ok = 0;
  let other = 0;
  const statuses: Record<string, number> = {};
  const pending: Array<Promise<void>> = [];
  const started = Date.now();
  let sent = 0;
  for (; Date.now() - started < options.seconds * 1000; sent++) {
    const player = players[sent % players.length];
    const sentAt = performance.now();
    pending.push(
      fetch(`${options.url}/inventories/transaction`, {
        method: 'POST',
        headers: { authorization: `jwt ${options.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'AWARD',
          personaOneUid: player.personaUids[0],
          personaOneInventoryItems: [{ itemUid: options.itemUid, quantity: 1 }],
        }),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          durations.push(performance.now() - sentAt);
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          if (response.ok) ok += 1;
          else other += 1;
        },
        () => {
          statuses.error = (statuses.error ?? 0) + 1;
          other += 1;
        },
      ),
    );
    const due = started + ((sent + 1) * 1000) / options.awardsPerSecond;
    if (due > Date.now()) await sleep(due - Date.now());
  }
  await Promise.all(pending);
  durations.sort((a, b) => a - b);
  const round = (ms: number) => Number(ms.toFixed(1));
  return {
    sent,
    ok,
    other,
    statuses,
    p50: round(percentile(durations, 50)),
    p99: round(percentile(durations, 99)),
    max: round(durations.at(-1) ?? NaN),
  };
}
