/**
 * `npm run bench`: how close the service comes to what Node.js and PostgreSQL can do on this machine.
 *
 * One run: an embedded PostgreSQL of its own (.data/bench/postgres, a fresh `bench` database each
 * time), migrated by starting the built service once, seeded with SQL (bench/seed.ts); the built
 * service in production mode and the baseline (bench/baseline.ts: Fastify + pg, no Nest, no ORM) as
 * processes of their own; autocannon in a third process (bench/load.ts). Each scenario gets a warm-up,
 * then service and baseline rounds alternate, so that drift of the shared machine hits both; the
 * table shows medians. Results go to stdout and bench/results/<timestamp>.json.
 *
 *   npm run bench                       full run (about fifteen minutes, the scale curve included)
 *   npm run bench -- --quick            smoke check (about four minutes): 1 s rounds, a smaller curve, no info-log run
 *   --connections 32 --duration 5 --rounds 3 --warmup 3
 *   --only items-by-id,items-list       scenarios: health, items-by-id, items-list, items-count, auth-idp1, auth-refresh,
 *                                       device-new, device-returning, items-create, gifts, awards, trades, progress,
 *                                       items-by-id-info, realtime, storage-read, storage-batch, storage-conditional,
 *                                       storage-read-grown, storage-read-ghost, media-file, media-304, media-uploads, matchmaking, scale,
 *                                       idle-memory (the RSS of a service just started with the production flags, and after
 *                                       a few seconds of reads and sign-ins; the goal lines also take every scenario's peak)
 *   --profile                           the service and the baseline run under --cpu-prof (.data/bench/profiles;
 *                                       read them with bench/profile-summary.ts)
 *   --plans                             PostgreSQL counts its planning (pg_stat_statements, loaded for the run): after
 *                                       each scenario, the statements it planned on most of their runs, with the
 *                                       planning's milliseconds a run (a prepared statement should reuse its plan)
 *   --skip-info-log                     skip the extra GET /items/{id} measurement at LOG_LEVEL=info
 *   --node-options=--max-semi-space-size=32   Node.js flags of the service process, after those of
 *                                       `npm run start:prod` it always runs with (a later flag wins)
 *   --service-env MEMORY_COMPACT_IDLE=0 a setting of every service the run starts (repeat it for more);
 *                                       a scenario's own settings (REDIS_URL, ...) still win
 *   --only leaderboard-top,leaderboard-around,leaderboard-me,leaderboard-best,leaderboard-increment
 *   --leaderboard-records 1000000       records of each of the two boards (100,000 with --quick), seeded after
 *                                       every other measure but the scale curve (a service holds them all from
 *                                       its start); the service restarts on them, and its start-up rebuild is
 *                                       timed, with the in-process rank structure and with Redis sorted sets (REDIS_URL)
 *   --leaderboard-ranks redis           the leaderboard scenarios against the service with REDIS_URL
 *                                       (default: in-process)
 *   --only leaderboard-period-end       a tournament of 100,000 participants (10,000 with --quick) ends
 *                                       and pays 1,000 prizes (100): timed, and each checked paid once
 *   --only sockets                      connected players (about three minutes, so only when named): 19,000
 *                                       authenticated sockets (2,000 with --quick) on an instance of its own,
 *                                       opened by 4 loader processes (bench/sockets.ts); idle RSS per socket,
 *                                       the pings' CPU at the default interval, 100 awards/s fanned out for 20 s
 *                                       (200 events/s, issue 32's rate)
 *   --sockets 19000 --socket-loaders 4  how many sockets (5 per player), from how many processes
 *   --fanout-awards 100                 awards a second in the sockets' fan-out (each writes two events)
 *   --only open-loop                    reads by id, the list of 100, gifts and provider sign-ins at fixed
 *                                       arrival rates (25, 50, 75 % of the baseline's closed-loop maximum),
 *                                       p50/p99/p99.9 beside the baseline, the baseline at the service's share
 *                                       of its own maximum, each one's knee, and the recovery from an overload
 *                                       (75 % then 25 % at once: seconds until each second's p99 is back within
 *                                       1.5 × the 25 % round's) (bench/open-loop.ts); about fourteen minutes
 *                                       (five with --quick), so only when asked for
 *   --open-loop items-by-id,gifts       with --only open-loop: some of its scenarios (items-by-id, items-list, gifts, auth-idp1)
 *   --open-loop-maximum 600,350         with one --open-loop scenario: the closed-loop maxima a second (the baseline's,
 *                                       then the service's) its rates are shares of, instead of measuring them: runs
 *                                       that compare two builds or settings on a shared machine then ask the same rates
 */
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { Request } from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { DeviceIds } from '../src/auth/users/device-ids.js';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import {
  cpuMillisecondsOf,
  launch,
  LoadGenerator,
  type ManagedProcess,
  memoryOf,
  postgresCpuMilliseconds,
  sampleMemory,
  scrapeMetrics,
  waitUntilReady,
} from './processes.js';
import {
  floorNote,
  goals,
  type IdleMemory,
  memoryGoals,
  type Round,
  roundFigures,
  type ScenarioReport,
  signInCeilingNote,
  type Summary,
  summarise,
  table,
  type TargetName,
} from './report.js';
import type { LoadJob } from './load.js';
import { loadavg, measurePeriodEnd, type PeriodEndReport } from './leaderboards.js';
import { measureMatchmaking, type MatchmakingReport } from './matchmaking.js';
import { measureOpenLoop, openLoopGoals, openLoopTable, type OpenLoopReport, RATIO_BOUND, recoveryTable } from './open-loop.js';
import { createAsset, type MediaFile, measureUploads, prepareMediaFile, type UploadReport } from './media.js';
import { freePort } from '../test/support/free-port.js';
import { productionNodeFlags } from '../test/support/production-flags.js';
import { RedisServer } from '../test/support/redis-server.js';
import { measureRealtime, type RealtimeReport } from './realtime.js';
import { measureSockets, type SocketsReport } from './sockets.js';
import { countRows, type CurvePoint, growItems, growPersonas, type ScaleReport, scaleChart, scaleTable } from './scale.js';
import { checkLedger, type LeaderboardSeed, seed, seedLeaderboards, seedSocketPlayers, type SeedData } from './seed.js';
import { countStorage, growStorageOwners, seedStorage, SETTINGS_VALUE } from './storage.js';
import { type LocalProvider, signAccessToken, startLocalProvider } from './tokens.js';

const { values: argv } = parseArgs({
  options: {
    connections: { type: 'string', default: '32' },
    duration: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    plans: { type: 'boolean', default: false },
    'skip-info-log': { type: 'boolean', default: false },
    'node-options': { type: 'string' },
    'leaderboard-records': { type: 'string' },
    'leaderboard-ranks': { type: 'string', default: 'in-process' },
    sockets: { type: 'string' },
    'socket-loaders': { type: 'string', default: '4' },
    'fanout-awards': { type: 'string', default: '100' },
    'open-loop': { type: 'string' },
    'open-loop-maximum': { type: 'string' },
    'service-env': { type: 'string', multiple: true },
  },
});

function positive(name: string, text: string, minimum = 1): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) throw new Error(`--${name} must be an integer >= ${minimum}, got ${text}`);
  return value;
}

const options = {
  connections: positive('connections', argv.connections),
  duration: positive('duration', argv.duration ?? (argv.quick ? '1' : '5')),
  rounds: positive('rounds', argv.rounds, 3),
  warmup: positive('warmup', argv.warmup ?? (argv.quick ? '1' : '3')),
  quick: argv.quick,
  only: argv.only?.split(',').map((id) => id.trim()),
  profile: argv.profile,
  plans: argv.plans,
  infoLog: !argv.quick && !argv['skip-info-log'],
  /** NODE_OPTIONS of the service process, to try runtime settings (e.g. --max-semi-space-size=32). */
  nodeOptions: argv['node-options'],
  /** Made-up players on each leaderboard of the leaderboard scenarios (the seeded players come on top). */
  leaderboardRecords: positive('leaderboard-records', argv['leaderboard-records'] ?? (argv.quick ? '100000' : '1000000')),
  /** Which rank structure the service of the leaderboard scenarios uses. */
  leaderboardRanks: oneOf('leaderboard-ranks', argv['leaderboard-ranks'], ['in-process', 'redis'] as const),
  /** Sockets of the sockets measure, and the loader processes that open them. */
  sockets: positive('sockets', argv.sockets ?? (argv.quick ? '2000' : '19000')),
  socketLoaders: positive('socket-loaders', argv['socket-loaders']),
  fanoutAwards: positive('fanout-awards', argv['fanout-awards']),
  /** Which scenarios `--only open-loop` drives (all four unless said). */
  openLoop: argv['open-loop']?.split(',').map((id) => id.trim()),
  /** The closed-loop maxima the open loop's rates are shares of, given instead of measured (the baseline's, then the service's). */
  openLoopMaximum: argv['open-loop-maximum']?.split(',').map((text) => positive('open-loop-maximum', text.trim())),
  /** Settings of every service this run starts, to try one (a scenario's own settings still win). */
  serviceEnv: Object.fromEntries(
    (argv['service-env'] ?? []).map((pair) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
      if (!match) throw new Error(`--service-env takes NAME=value, got ${pair}`);
      return [match[1], match[2]];
    }),
  ),
};

function oneOf<T extends string>(name: string, text: string, choices: readonly T[]): T {
  if (!choices.includes(text as T)) throw new Error(`--${name} must be one of ${choices.join(', ')}, got ${text}`);
  return text as T;
}

const root = process.cwd();
const benchDir = join(root, '.data', 'bench');
const distCopy = join(benchDir, 'dist');
const resultsDir = join(root, 'bench', 'results');
const profileDir = join(benchDir, 'profiles');
const JWT = { secret: randomBytes(32).toString('base64url'), issuer: 'game-backend', audience: 'game-backend' };
/** The key of device ids, given to the service and the baseline alike: both find the seeded guests. */
const DEVICE_ID_KEY = randomBytes(32).toString('base64url');

const cleanups: Array<() => Promise<void> | void> = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()!();
    } catch (error) {
      console.error('clean-up:', error);
    }
  }
}
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

const log = (message: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

interface Target {
  name: TargetName;
  url: string;
  server: ManagedProcess;
}

interface Scenario {
  id: string;
  title: string;
  withBaseline: boolean;
  /** The service's LOG_LEVEL for this scenario (warn unless said). */
  logLevel?: 'info';
  requests: Request[];
  /** Runs once before the scenario's first round (it may grow the data: later scenarios see it too). */
  prepare?: () => Promise<void>;
  /** How the load generator sends them (LoadJob.chain). */
  chain?: LoadJob['chain'];
  /**
   * An exact check of a write scenario. The timed rounds stop with requests in flight, whose effect
   * lands but whose answer is never counted; so after them a verification run sends a fixed number of
   * requests, awaits every answer, and `check` compares the state with the 2xx answers of that run
   * (`since`: the database's clock when it started).
   */
  verify?: {
    reset?: () => Promise<void>;
    check: (successes: number, since: Date) => Promise<Check>;
  };
}

type Check = NonNullable<ScenarioReport['check']>;

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg().map((value) => Number(value.toFixed(2)));
  const unknownOpenLoop = options.openLoop?.filter((id) => !OPEN_LOOP_SCENARIOS.some(([known]) => known === id)) ?? [];
  if (unknownOpenLoop.length > 0 || (options.openLoop && !options.only?.includes('open-loop')))
    throw new Error(`--open-loop goes with --only open-loop and names some of ${OPEN_LOOP_SCENARIOS.map(([id]) => id).join(', ')}`);
  if (options.openLoopMaximum && (options.openLoop?.length !== 1 || options.openLoopMaximum.length > 2))
    throw new Error("--open-loop-maximum goes with one --open-loop scenario: its maxima a second, the baseline's then the service's");
  if (!existsSync(join(root, 'dist', 'src', 'main.js')))
    throw new Error('dist/src/main.js is missing: run `npm run bench` (it builds first)');
  mkdirSync(benchDir, { recursive: true });
  mkdirSync(resultsDir, { recursive: true });
  // A private copy of the build: another `nest build` (the test suite makes one) empties dist/ while
  // it compiles, which would break a service started meanwhile. Modules still resolve from the
  // project's node_modules, two folders up.
  rmSync(distCopy, { recursive: true, force: true });
  if (options.profile) rmSync(profileDir, { recursive: true, force: true });
  cpSync(join(root, 'dist'), distCopy, { recursive: true });
  // The media files of earlier runs (the uploads measure writes 1.25 GB) are not kept.
  for (const folder of ['static', 'media', 'baseline-uploads']) rmSync(join(benchDir, folder), { recursive: true, force: true });

  log('starting PostgreSQL');
  const database = await startEmbeddedPostgres({
    directory: join(benchDir, 'postgres'),
    settings: options.plans ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' } : undefined,
  });
  cleanups.push(() => database.stop());
  const admin = new pg.Pool({ connectionString: database.adminUrl, max: 2 });
  await admin.query('DROP DATABASE IF EXISTS bench WITH (FORCE)');
  await admin.query('CREATE DATABASE bench');
  await admin.end();
  const databaseUrl = database.adminUrl.replace(/\/postgres$/, '/bench');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', (error) => log(`bench database pool: ${error.message}`));
  cleanups.push(() => pool.end());
  if (options.plans) await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const postgresVersion = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  const postmasterPid = Number(readFileSync(join(benchDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

  const provider = await startLocalProvider();
  cleanups.push(() => provider.close());

  let service = await startService(databaseUrl, provider, 'warn'); // runs the migrations
  log('seeding');
  const data = await seed(pool, undefined, (deviceId) => DeviceIds.fromSecrets(DEVICE_ID_KEY, JWT.secret).subjectOf(deviceId));
  const settingsVersions = await seedStorage(
    pool,
    data.players.map((player) => player.uid),
  );
  const tokens = await mintTokens(data, provider);
  const staticDir = join(benchDir, 'static');
  const mediaFile = await prepareMediaFile(service.url, tokens.admin, staticDir);
  const baseline = await startBaseline(databaseUrl, 'baseline', {
    MEDIA_STATIC_DIR: staticDir,
    IDP1_JWKS_URL: provider.jwksUrl,
    IDP1_ISSUER: provider.issuer,
  });
  const load = await LoadGenerator.start(join(root, 'bench', 'load.ts'), root);
  cleanups.push(() => load.stop());

  await compareAnswers(service, baseline, data, tokens.players[0]);

  // The leaderboards are seeded last, after every measure that does not need them: each start of the
  // service rebuilds its rank structure from their records, and holding them would weigh on every
  // other scenario's memory and collections.
  const wantsLeaderboards = !options.only || options.only.some((id) => id.startsWith('leaderboard'));
  const startOnLeaderboards = async (): Promise<LeaderboardSeed & { start: LeaderboardStart }> => {
    // The rank structures are built at start: a start on empty boards, then one on the seeded ones.
    await service.server.stop();
    let started = Date.now();
    service = await startService(databaseUrl, provider, 'warn');
    const empty = { startMs: Date.now() - started, rssMb: memoryOf(service.server.pid).rss };
    await service.server.stop();
    log(`seeding two leaderboards of ${options.leaderboardRecords} records`);
    const seeded = await seedLeaderboards(pool, data, options.leaderboardRecords);
    started = Date.now();
    service = await startService(databaseUrl, provider, 'warn');
    const full = { startMs: Date.now() - started, rssMb: memoryOf(service.server.pid).rss, loadavg: loadavg() };
    const start: LeaderboardStart = {
      records: 2 * seeded.records,
      emptyStartMs: empty.startMs,
      startMs: full.startMs,
      rebuildMs: await rebuildMilliseconds(service.url),
      emptyRssMb: empty.rssMb,
      rssMb: full.rssMb,
      bytesPerRecord: Math.round(((full.rssMb - empty.rssMb) * 1024 * 1024) / (2 * seeded.records)),
      loadavg: full.loadavg,
    };
    // The same start with REDIS_URL: the starting instance builds the sorted sets; its own memory stays that of an empty start.
    const redis = await RedisServer.start().catch((error: unknown) => {
      log(`leaderboard ranks in Redis skipped: ${(error as Error).message}`);
      return undefined;
    });
    if (redis) {
      cleanups.push(() => redis.stop());
      const redisBefore = await redisUsedBytes(redis.url);
      started = Date.now();
      const overRedis = await startService(databaseUrl, provider, 'warn', { name: 'service-redis-ranks', env: { REDIS_URL: redis.url } });
      const startMs = Date.now() - started;
      const redisBytes = (await redisUsedBytes(redis.url)) - redisBefore;
      start.redis = {
        startMs,
        rebuildMs: await rebuildMilliseconds(overRedis.url),
        rssMb: memoryOf(overRedis.server.pid).rss,
        redisUsedMb: Math.round(redisBytes / 1024 / 1024),
        bytesPerRecord: Math.round(redisBytes / (2 * seeded.records)),
        loadavg: loadavg(),
      };
      // Another instance starting on sets that are current: nothing to rebuild.
      await overRedis.server.stop();
      started = Date.now();
      const again = await startService(databaseUrl, provider, 'warn', { name: 'service-redis-ranks', env: { REDIS_URL: redis.url } });
      start.redis.restartMs = Date.now() - started;
      start.redis.restartRebuildMs = await rebuildMilliseconds(again.url);
      if (options.leaderboardRanks === 'redis') {
        await service.server.stop();
        service = again;
      } else {
        await again.server.stop();
      }
    }
    log(`leaderboards: ${JSON.stringify(start)}`);
    return { ...seeded, start };
  };
  const defined = defineScenarios(data, tokens, pool, settingsVersions, mediaFile);
  const measures = ['idle-memory', 'realtime', 'matchmaking', 'scale', 'media-uploads', 'leaderboard-period-end', 'sockets', 'open-loop'];
  const known = [...defined.map((scenario) => scenario.id), ...LEADERBOARD_SCENARIOS, ...measures];
  const unknown = options.only?.filter((id) => !known.includes(id)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}: choose from ${known.join(', ')}`);
  const chosen = (id: string) => !options.only || options.only.includes(id);
  const scenarios = defined.filter((scenario) => chosen(scenario.id));
  const scenarioCount = scenarios.length + LEADERBOARD_SCENARIOS.filter(chosen).length;
  let idleMemory: IdleMemory | undefined;
  if (chosen('idle-memory')) {
    await service.server.stop();
    service = await startService(databaseUrl, provider, 'warn');
    idleMemory = await measureIdleMemory(service, load, defined);
    log(`idle RSS with the production flags: ${idleMemory.afterStartMb} MB after start, ${idleMemory.afterWarmUpMb} MB after a warm-up`);
  }
  const reports: ScenarioReport[] = [];
  // Peak RSS (VmHWM) of the service processes, by the part of the run that started them.
  const rssPeaks: Record<string, number> = {};
  const notePeak = (part: string, pid: number) => (rssPeaks[part] = Math.max(rssPeaks[part] ?? 0, memoryOf(pid).peak));
  const runScenarios = async (list: Scenario[]) => {
    for (const scenario of list) {
      const logLevel = scenario.logLevel ?? 'warn';
      if (service.logLevel !== logLevel) {
        notePeak('scenarios', service.server.pid);
        await service.server.stop();
        service = await startService(databaseUrl, provider, logLevel);
      }
      log(`${scenario.title}${options.only ? '' : ` (${reports.length + 1}/${scenarioCount})`}`);
      await scenario.prepare?.();
      if (options.plans) await pool.query('SELECT pg_stat_statements_reset()');
      const report = await runScenario(scenario, service, baseline, load, pool, postmasterPid);
      reports.push(report);
      if (options.plans) for (const line of await plannedOnMostRuns(pool)) log(`  ${line}`);
      const brief = (summary: Summary) =>
        `${Math.round(summary.requestsPerSecond)} req/s, p99 ${summary.p99?.toFixed(1)} ms, ` +
        `${summary.cpuMsPerRequest?.toFixed(2)} CPU ms/req (DB ${summary.databaseCpuMsPerRequest?.toFixed(2)})`;
      log(
        `  service ${brief(report.service)}${report.baseline ? `; baseline ${brief(report.baseline)}` : ''}${report.check ? `; ${report.check.ok ? 'OK' : 'FAIL'}` : ''}`,
      );
    }
  };
  await runScenarios(scenarios);
  let openLoop: OpenLoopReport[] | undefined;
  if (options.only?.includes('open-loop')) {
    if (service.logLevel !== 'warn') {
      notePeak('scenarios', service.server.pid);
      await service.server.stop();
      service = await startService(databaseUrl, provider, 'warn');
    }
    openLoop = [];
    for (const [id, p99BoundMs] of OPEN_LOOP_SCENARIOS.filter(([known]) => !options.openLoop || options.openLoop.includes(known))) {
      const scenario = defined.find((entry) => entry.id === id)!;
      // The maximum is the closed loop's: this run's if the scenario ran above, else measured now, unless given.
      let closed: Pick<ScenarioReport, 'baseline' | 'service'> | undefined = reports.find((report) => report.id === id);
      if (options.openLoopMaximum) {
        const [theirs, ours = theirs] = options.openLoopMaximum;
        closed = scenario.withBaseline
          ? { baseline: { requestsPerSecond: theirs } as Summary, service: { requestsPerSecond: ours } as Summary }
          : { service: { requestsPerSecond: theirs } as Summary };
      }
      if (!closed) {
        log(`open loop: ${scenario.title}, its closed-loop maximum first`);
        const measured = await runScenario({ ...scenario, verify: undefined }, service, baseline, load, pool, postmasterPid);
        // In the table and the results too: the closed loop's figures beside the open loop's.
        reports.push(measured);
        closed = measured;
      }
      const maximum = closed.baseline
        ? { requestsPerSecond: closed.baseline.requestsPerSecond, of: 'baseline' as const }
        : { requestsPerSecond: closed.service.requestsPerSecond, of: 'service' as const };
      log(
        `open loop: ${scenario.title} at 25, 50 and 75 % of the ${maximum.of}'s ${Math.round(maximum.requestsPerSecond)}/s, then its knee, then 75 % and 25 % again (the recovery)`,
      );
      openLoop.push(
        await measureOpenLoop({
          scenario: {
            id,
            title: scenario.title,
            requests: scenario.requests,
            maximum,
            serviceMaximum: closed.service.requestsPerSecond,
            p99BoundMs,
          },
          service,
          baseline: scenario.withBaseline ? baseline : undefined,
          load,
          settings: options.quick
            ? { warmup: 1, rounds: 1, duration: 2, probe: 1.5, overload: 5, recovery: 10 }
            : { warmup: 2, rounds: 2, duration: 5, probe: 3, overload: 10, recovery: 20 },
          afterBaseline: () => cancelBaselineLeftovers(pool),
          loadavg: () =>
            os
              .loadavg()
              .map((value) => value.toFixed(2))
              .join(' '),
          log,
        }),
      );
    }
    notePeak('scenarios', service.server.pid);
  }
  let realtime: RealtimeReport | undefined;
  let realtimeOverRedis: RealtimeReport | undefined;
  if (chosen('realtime')) {
    if (service.logLevel !== 'warn') {
      await service.server.stop();
      service = await startService(databaseUrl, provider, 'warn');
    }
    log('realtime: commit-to-client latency with many sockets open, memory per idle socket');
    const measure = (target: RunningService) =>
      measureRealtime({
        url: target.url,
        pid: target.server.pid,
        data,
        tokenOf: (userUid) => tokens.byUserUid.get(userUid)!,
        socketsPerPlayer: 5,
        giftsPerSecond: options.quick ? 20 : 50,
        seconds: options.quick ? 3 : 10,
        log,
      });
    realtime = await measure(service);
    // The same over Redis pub/sub (REDIS_URL), when Debian's redis-server is installed.
    const redis = await RedisServer.start().catch((error: unknown) => {
      log(`realtime over Redis skipped: ${(error as Error).message}`);
      return undefined;
    });
    if (redis) {
      cleanups.push(() => redis.stop());
      const overRedis = await startService(databaseUrl, provider, 'warn', { name: 'service-redis', env: { REDIS_URL: redis.url } });
      log('realtime over Redis: the same, with wake-ups published to Redis after the commit');
      realtimeOverRedis = await measure(overRedis);
      notePeak('realtime over Redis', overRedis.server.pid);
      await overRedis.server.stop();
      await redis.stop();
    }
  }
  let sockets: SocketsReport | undefined;
  if (options.only?.includes('sockets')) {
    // An instance of its own, so that its memory before the sockets is that of a fresh start; its peak
    // is the sockets' own figure, not one of the scenarios'.
    const socketsPerPlayer = 5;
    const players = await seedSocketPlayers(pool, Math.ceil(options.sockets / socketsPerPlayer));
    const socketTokens = new Map(
      await Promise.all(players.map(async (player) => [player.uid, await signAccessToken(JWT, player)] as const)),
    );
    const pingIntervalMs = options.quick ? 10_000 : 30_000;
    const instance = await startService(databaseUrl, provider, 'warn', {
      name: 'service-sockets',
      // Room for every socket and the loaders' ticket requests, below the open files the instance gets.
      env: { REALTIME_PING_INTERVAL: String(pingIntervalMs), HTTP_MAX_CONNECTIONS: String(options.sockets + 500) },
      openFiles: options.sockets + 1000,
    });
    log(`sockets: ${options.sockets} connected players on one instance`);
    sockets = await measureSockets(root, {
      url: instance.url,
      pid: instance.server.pid,
      pool,
      players,
      socketsPerPlayer,
      sockets: options.sockets,
      tokenOf: (player) => socketTokens.get(player.uid)!,
      adminToken: tokens.admin,
      itemUid: data.goldCoinUid,
      loaders: options.socketLoaders,
      addressesPerLoader: 2,
      pingIntervalMs,
      awardsPerSecond: options.fanoutAwards,
      seconds: options.quick ? 5 : 20,
      log,
    });
    log(`  ${JSON.stringify(sockets)}`);
    await instance.server.stop();
  }
  // The realtime measure runs in the scenarios' last process: its peak covers both.
  notePeak(realtime ? 'scenarios and realtime' : 'scenarios', service.server.pid);
  let uploads: UploadReport | undefined;
  let baselineUploads: UploadReport | undefined;
  if (chosen('media-uploads')) {
    if (service.logLevel !== 'warn') {
      notePeak('scenarios', service.server.pid);
      await service.server.stop();
      service = await startService(databaseUrl, provider, 'warn');
    }
    log('media uploads: 50 MB streamed to the local store, one at a time, then 20 at once');
    const asset = await createAsset(service.url, tokens.admin, 'Bench uploads');
    const measure = (url: string, pid: number) =>
      measureUploads({
        target: (variant) => `${url}/assets/media/${asset}/files/${variant}`,
        pid,
        adminToken: tokens.admin,
        sequential: options.quick ? 2 : 5,
        concurrent: 20,
        log,
      });
    uploads = await measure(service.url, service.server.pid);
    // Side by side: the same uploads into a bare Fastify route that pipes to disk, started with the
    // service's Node.js flags (the heap's sizes decide when garbage is collected).
    const bare = await startBaseline(databaseUrl, 'baseline-uploads', { MEDIA_UPLOAD_DIR: join(benchDir, 'baseline-uploads') }, [
      ...productionNodeFlags(root),
      ...(options.nodeOptions?.split(/\s+/).filter(Boolean) ?? []),
    ]);
    log('the same uploads into a bare Fastify route (bench/baseline.ts)');
    baselineUploads = await measure(bare.url, bare.server.pid);
    await bare.server.stop();
    rmSync(join(benchDir, 'baseline-uploads'), { recursive: true, force: true });
    notePeak('media uploads', service.server.pid);
  }
  let matchmaking: MatchmakingReport | undefined;
  if (chosen('matchmaking')) {
    // Its own instances: the matchmaker runs in them, and the scenarios above must not see it.
    log('matchmaking: a queue of 1v1 tickets matched by one instance, then by three');
    matchmaking = await measureMatchmaking({
      pool,
      tickets: options.quick ? 2000 : 10_000,
      instanceCounts: [1, 3],
      startInstances: async (count) => {
        const started = await Promise.all(
          Array.from({ length: count }, (_, index) =>
            startService(databaseUrl, provider, 'warn', {
              name: `matchmaker-${index + 1}`,
              env: { MATCHMAKER_ENABLED: 'true', MATCHMAKER_INTERVAL: '100', MATCHMAKER_RELAXATION: 'off', SESSION_MEMBER_TIMEOUT: '0' },
            }),
          ),
        );
        return {
          stop: async () => {
            for (const instance of started) notePeak('matchmaking', instance.server.pid);
            await Promise.all(started.map((instance) => instance.server.stop()));
          },
        };
      },
      log,
    });
  }
  let leaderboards: (LeaderboardSeed & { start: LeaderboardStart }) | undefined;
  if (wantsLeaderboards) {
    leaderboards = await startOnLeaderboards();
    await runScenarios(leaderboardScenarios(tokens, leaderboards).filter((scenario) => chosen(scenario.id)));
  }
  let periodEnd: PeriodEndReport | undefined;
  if (leaderboards && chosen('leaderboard-period-end')) {
    const participants = options.quick ? 10_000 : 100_000;
    const winners = options.quick ? 100 : 1000;
    log(`leaderboard period end: ${participants} participants, ${winners} prizes`);
    const pid = service.server.pid;
    periodEnd = await measurePeriodEnd({
      pool,
      url: service.url,
      adminToken: tokens.admin,
      playerToken: tokens.players[0],
      participants,
      winners,
      closeDelayMs: 20_000,
      cpuMs: () => cpuMillisecondsOf(pid),
      log,
    });
    log(`  ${JSON.stringify(periodEnd)}`);
  }
  if (leaderboards) leaderboards.start.peakRssMb = memoryOf(service.server.pid).peak;
  let baselineRssPeakMb = memoryOf(baseline.server.pid).peak;
  let scale: ScaleReport | undefined;
  if (chosen('scale')) {
    // Its own database, service and baseline: it grows the data, which the scenarios above must not see.
    await Promise.all([service.server.stop(), baseline.server.stop()]);
    const curve = await measureScaleCurve(database.adminUrl, provider, load, postmasterPid);
    scale = curve.report;
    rssPeaks['scale curve'] = curve.serviceRssPeakMb;
    baselineRssPeakMb = Math.max(baselineRssPeakMb, curve.baselineRssPeakMb);
    const caption =
      `${startedAt.toISOString().slice(0, 10)}, ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}, ` +
      `PostgreSQL ${postgresVersion}; medians of ${scaleMeasurement.rounds} rounds of ${scaleMeasurement.duration} s`;
    const chart = scaleChart(scale, caption);
    writeFileSync(join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}-scale.svg`), chart);
    // The README shows the chart of the last full run; a quick run's figures are a smoke check only.
    if (!options.quick) writeFileSync(join(root, 'docs', 'scale-curve.svg'), chart);
  }

  const output = table(reports);
  const serviceRssPeakMb = Math.max(0, ...Object.values(rssPeaks));
  // The leaderboard scenarios' process holds the seeded boards' records: its memory is the records',
  // printed with the leaderboards' start-up, apart from the goals of the instance's own memory.
  const scenarioPeaks = [
    ...reports
      .filter((report) => !report.id.startsWith('leaderboard'))
      .map((report) => ({ part: report.title, mb: report.service.peakRssMb })),
    // The parts measured apart from the scenarios' rounds; the sockets' goal is per socket.
    ...Object.entries(rssPeaks)
      .filter(([part]) => !part.includes('realtime') && part !== 'scenarios')
      .map(([part, mb]) => ({ part, mb })),
  ];
  const goalResults = [...goals(reports, options.connections, serviceRssPeakMb), ...memoryGoals(idleMemory, scenarioPeaks)];
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: postgresVersion,
    // Other work on the machine shows here (2 cores: a load above 2 means the run shared them).
    loadAverageAtStart,
    loadAverageAtEnd: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
  console.log(
    `\nGame backend benchmark, ${startedAt.toISOString()}: ${machine.cpus} cores (${machine.cpuModel}), Node ${machine.node}, ` +
      `PostgreSQL ${machine.postgres} (embedded), ${options.connections} connections, ${options.rounds} rounds of ${options.duration} s ` +
      `per server after a ${options.warmup} s warm-up; medians. Service request logging is off (LOG_LEVEL=warn) ` +
      `except where a row says LOG_LEVEL=info${options.profile ? '; both servers ran under --cpu-prof' : ''}` +
      `; service started with ${[...productionNodeFlags(root), options.nodeOptions].filter(Boolean).join(' ')}` +
      Object.entries(options.serviceEnv)
        .map(([name, value]) => ` ${name}=${value}`)
        .join('') +
      `. Load average ` +
      `${machine.loadAverageAtStart[0]} at the start, ${machine.loadAverageAtEnd[0]} at the end.\n`,
  );
  console.log(output);
  console.log('');
  for (const report of reports.filter((entry) => entry.check)) {
    console.log(`${report.check!.ok ? 'OK  ' : 'FAIL'} ${report.title}: ${report.check!.summary}`);
  }
  console.log('');
  for (const goal of goalResults) console.log(`${goal.met ? 'PASS' : 'MISS'} ${goal.goal}: ${goal.figure}`);
  const floor = floorNote(reports);
  if (floor) console.log(`\n${floor}`);
  if (openLoop) {
    console.log(
      `\nOpen loop: requests at fixed arrival rates (bench/open-loop-driver.ts), latency from each request's due time; ` +
        `rates are shares of the baseline's closed-loop maximum (the service's own where there is no baseline); ` +
        `percentiles over all measured rounds.\n`,
    );
    console.log(openLoopTable(openLoop));
    console.log(
      `\nRecovery: on each server, 75 % and then at once 25 % again; the p99 of the requests due in each second after the ` +
        `overload ended (! where some failed), and how many seconds passed before one was within ${RATIO_BOUND} × that server's 25 % round.\n`,
    );
    console.log(recoveryTable(openLoop));
    console.log('');
    for (const line of openLoopGoals(openLoop)) {
      console.log(line.met === undefined ? `${line.goal}: ${line.figure}` : `${line.met ? 'PASS' : 'MISS'} ${line.goal}: ${line.figure}`);
    }
  }
  const signInCeiling = signInCeilingNote(reports);
  if (signInCeiling) console.log(`\n${signInCeiling}`);
  if (realtime) {
    const { latencyMs: latency } = realtime;
    console.log(
      `\nRealtime: ${realtime.sockets} sockets open; ${realtime.gifts.completed} gifts (${realtime.gifts.other} other answers) → ` +
        `${realtime.framesReceived} of ${realtime.framesExpected} frames received; write-to-client latency p50 ${latency.p50} ms, ` +
        `p99 ${latency.p99} ms, max ${latency.max} ms; per idle socket ${realtime.rssPerIdleSocketKb} KB of RSS, ` +
        `${realtime.heapPerIdleSocketKb} KB of V8 heap.`,
    );
    console.log(`${latency.p99 < 100 ? 'PASS' : 'MISS'} realtime p99 under 100 ms: ${latency.p99} ms`);
    console.log(
      `${realtime.rssPerIdleSocketKb < 20 ? 'PASS' : 'MISS'} under 20 KB per idle socket: ${realtime.rssPerIdleSocketKb} KB (RSS)`,
    );
    if (realtime.framesReceived < realtime.framesExpected) process.exitCode = 1;
  }
  if (realtimeOverRedis) {
    const { latencyMs: latency } = realtimeOverRedis;
    console.log(
      `Realtime over Redis (REDIS_URL): ${realtimeOverRedis.framesReceived} of ${realtimeOverRedis.framesExpected} frames received; ` +
        `latency p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms (LISTEN/NOTIFY above: p99 ${realtime?.latencyMs.p99} ms).`,
    );
    if (realtimeOverRedis.framesReceived < realtimeOverRedis.framesExpected) process.exitCode = 1;
  }
  if (sockets) printSockets(sockets);
  if (uploads) {
    const sorted = [...uploads.sequentialMBps].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    const { concurrent } = uploads;
    const describe = (report: UploadReport) =>
      `one at a time ${report.sequentialMBps.join(', ')} MB/s (server CPU ${report.sequentialCpuMsPerMb} ms/MB); ` +
      `${report.concurrent.uploads} at once in ${report.concurrent.seconds} s, ` +
      `RSS ${report.concurrent.rssBeforeMb} → ${report.concurrent.rssPeakMb} MB (${report.rssIdleMb} MB before any upload), ` +
      `${report.concurrent.failures} failed`;
    console.log(`\nMedia uploads to the local store (${uploads.bytesPerUpload / 1e6} MB each): ${describe(uploads)}.`);
    if (baselineUploads) console.log(`The same into a bare Fastify route piping to disk: ${describe(baselineUploads)}.`);
    console.log(`${median >= 100 ? 'PASS' : 'MISS'} 50 MB uploads at 100 MB/s or more: median ${median} MB/s`);
    console.log(
      `${concurrent.rssGrowthMb < 50 && concurrent.failures === 0 ? 'PASS' : 'MISS'} RSS growth under 50 MB during ${concurrent.uploads} ` +
        `concurrent 50 MB uploads: ${concurrent.rssGrowthMb} MB`,
    );
  }
  if (leaderboards) {
    const { start } = leaderboards;
    const perMillion = (ms: number) => (ms / start.records) * 1e6;
    console.log(
      `\nLeaderboard start-up on ${start.records} records: in process ${start.startMs} ms against ${start.emptyStartMs} ms empty ` +
        `(rebuild ${start.rebuildMs} ms, ${Math.round(perMillion(start.rebuildMs))} ms per million), RSS ${start.emptyRssMb.toFixed(0)} → ${start.rssMb.toFixed(0)} MB ` +
        `(${start.bytesPerRecord} bytes per record)${start.peakRssMb === undefined ? '' : `, peak ${start.peakRssMb.toFixed(0)} MB while serving them`}, load ${start.loadavg}` +
        (start.redis
          ? `; with Redis ${start.redis.startMs} ms (rebuild ${start.redis.rebuildMs} ms, ${Math.round(perMillion(start.redis.rebuildMs))} ms per million), ` +
            `service RSS ${start.redis.rssMb.toFixed(0)} MB, Redis +${start.redis.redisUsedMb} MB (${start.redis.bytesPerRecord} bytes per record), load ${start.redis.loadavg}; ` +
            `another start on current sets ${start.redis.restartMs} ms (rebuild ${start.redis.restartRebuildMs} ms)`
          : ''),
    );
    for (const [mode, rebuildMs] of [
      ['in process', start.rebuildMs],
      ['Redis', start.redis?.rebuildMs],
    ] as const) {
      if (rebuildMs !== undefined) {
        console.log(`${perMillion(rebuildMs) < 10_000 ? 'PASS' : 'MISS'} rank rebuild (${mode}) under 10 s per million records`);
      }
    }
  }
  if (periodEnd) {
    console.log(
      `\nLeaderboard period end: ${periodEnd.participants} participants, ${periodEnd.winners} prizes: all paid in ${periodEnd.seconds.toFixed(1)} s ` +
        `(service CPU ${Math.round(periodEnd.serviceCpuMs)} ms), load ${periodEnd.loadavg}; paid once: ${periodEnd.paidOnce}`,
    );
    console.log(`${periodEnd.paidOnce && periodEnd.seconds < 30 ? 'PASS' : 'MISS'} every prize paid exactly once within 30 s`);
  }
  if (matchmaking) {
    const { reference } = matchmaking;
    console.log(
      `\nMatchmaking: ${matchmaking.tickets} SEARCHING 1v1 tickets (skill 0-3000, ±200); greedy nearest-neighbour reference ` +
        `${reference.matched} matched, mean skill gap ${reference.meanDistance}.`,
    );
    for (const run of matchmaking.runs) {
      console.log(
        `  ${run.instances} instance(s): ${run.matched} matched in ${run.seconds} s (${run.ticketsPerSecond} tickets/s), ` +
          `mean skill gap ${run.meanDistance}`,
      );
    }
    const slowest = Math.min(...matchmaking.runs.map((run) => run.ticketsPerSecond));
    console.log(`${slowest >= 1000 ? 'PASS' : 'MISS'} matchmaking at least 1000 tickets/s: ${slowest}`);
    const closest = Math.max(...matchmaking.runs.map((run) => run.meanDistance));
    console.log(
      `${closest <= reference.meanDistance ? 'PASS' : 'MISS'} match quality no worse than the reference: mean gap ${closest} vs ${reference.meanDistance}`,
    );
  }
  if (scale) {
    console.log('');
    console.log(scaleTable(scale));
    const { ledger } = scale;
    console.log(
      `scale curve: after it, ledger invariant violations ${ledger.itemMismatches} items, ${ledger.holdingMismatches} holdings; ` +
        `negative quantities ${ledger.negativeQuantities}${options.quick ? '' : '; chart: docs/scale-curve.svg'}`,
    );
    if (ledger.itemMismatches + ledger.holdingMismatches + ledger.negativeQuantities > 0) process.exitCode = 1;
  }
  const parts = Object.entries(rssPeaks).map(([part, mb]) => `${part} ${mb.toFixed(0)}`);
  console.log(
    `\nservice peak RSS ${serviceRssPeakMb.toFixed(0)} MB (${parts.join(', ')}), baseline ${baselineRssPeakMb.toFixed(0)} MB (VmHWM)`,
  );

  const file = join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        machine,
        options,
        notes: [
          'Service request logging is off at LOG_LEVEL=warn (one JSON line per request at info).',
          "req/s counts all responses; latencies are over 2xx responses; CPU ms/req is the server process's user+system time per " +
            'response, DB CPU ms/req that of PostgreSQL (all its processes).',
        ],
        scenarios: reports,
        openLoop,
        leaderboardStart: leaderboards?.start,
        periodEnd,
        realtime,
        realtimeOverRedis,
        sockets,
        uploads,
        baselineUploads,
        matchmaking,
        scale,
        idleMemory,
        serviceRssPeakMb,
        serviceRssPeaksMb: rssPeaks,
        baselineRssPeakMb,
        goals: goalResults,
        table: output,
      },
      null,
      2,
    ),
  );
  console.log(`results: ${relative(root, file)}`);
  if (options.profile) {
    console.log(
      `CPU profiles of the service and the baseline: ${relative(root, profileDir)} (read with: npx tsx bench/profile-summary.ts <file>)`,
    );
  }
  if (reports.some((report) => report.check && !report.check.ok)) process.exitCode = 1;
}

function printSockets(report: SocketsReport): void {
  const { idle, fanout } = report;
  const failed = Object.values(report.failures).reduce((sum, n) => sum + n, 0);
  const closed = Object.values(report.closedByServer).reduce((sum, n) => sum + n, 0);
  console.log(
    `\nConnected players: ${report.opened} of ${report.sockets} sockets open in ${report.openSeconds} s from ${report.loaders} loaders ` +
      `on ${report.localAddresses} loopback addresses (half by header, half by ticket), ${report.openCpuMsPerSocket} service CPU ms each; ` +
      `${failed} failed ${JSON.stringify(report.failures)}, ` +
      `${closed} closed by the service ${JSON.stringify(report.closedByServer)}. Service RSS ${report.rssBeforeMb} → ${report.rssIdleMb} MB ` +
      `(${report.rssPerIdleSocketKb} KB per idle socket; ${report.compactionMs === undefined ? 'no compaction once quiet' : `compacted once quiet, a ${report.compactionMs} ms pause`}; ` +
      `${report.settle.cpuMs} ms of service CPU in the ${report.settle.seconds} s after), ` +
      `peak ${report.rssPeakMb} MB. Idle for one ping interval (${idle.seconds} s): ` +
      `${idle.cpuMs} ms of service CPU, event loop delayed up to ${idle.eventLoopDelayMs.max} ms, load ${idle.loadavg}. ${fanout.awards.sent} awards at ${fanout.awardsPerSecond}/s ` +
      `(${fanout.awards.ok} ok, ${fanout.awards.other} other ${JSON.stringify(fanout.awards.statuses)}; answered p50 ${fanout.awards.p50} ms, p99 ${fanout.awards.p99} ms, ` +
      `max ${fanout.awards.max} ms) → ${fanout.events} events, ${fanout.framesReceived} of ${fanout.framesExpected} frames received, ` +
      `${fanout.socketsShort} sockets short; commit-to-client p50 ${fanout.latencyMs.p50} ms, p99 ${fanout.latencyMs.p99} ms, ` +
      `max ${fanout.latencyMs.max} ms; ${fanout.serviceCpuMsPerEvent} service CPU ms per event; event loop delay p99 ` +
      `${fanout.eventLoopDelayMs.p99} ms, max ${fanout.eventLoopDelayMs.max} ms; load ${fanout.loadavg}.`,
  );
  const line = (met: boolean, text: string) => console.log(`${met ? 'PASS' : 'MISS'} ${text}`);
  line(
    report.opened === report.sockets && report.openSeconds <= 60,
    `${report.sockets} sockets opened within 60 s, none failed: ${report.opened} in ${report.openSeconds} s, ${failed} failed`,
  );
  line(report.rssPerIdleSocketKb <= 10, `at most 10 KB of RSS per idle socket: ${report.rssPerIdleSocketKb} KB`);
  line(idle.coreShare < 0.05, `keep-alive pings under 5 % of a core: ${(idle.coreShare * 100).toFixed(1)} %`);
  line(fanout.latencyMs.p99 < 100, `fan-out commit-to-client p99 under 100 ms: ${fanout.latencyMs.p99} ms`);
  line(
    fanout.framesReceived >= fanout.framesExpected && fanout.socketsShort === 0 && closed === 0,
    `no frame lost: ${fanout.framesReceived} of ${fanout.framesExpected}, ${fanout.socketsShort} sockets short`,
  );
  if (fanout.framesReceived < fanout.framesExpected || fanout.socketsShort > 0) process.exitCode = 1;
}

/**
 * The statements PostgreSQL planned on most of their runs since the last reset, the costliest planning
 * first. A prepared statement is planned for its first five runs' values, then keeps one generic plan
 * unless that plan's estimate is above theirs: a parameter the estimate cannot see through (an OFFSET,
 * an array's length) can make it plan every run, which costs PostgreSQL's CPU on every request.
 */
async function plannedOnMostRuns(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ calls: string; plans: string; planMs: number; query: string }>(
    `SELECT calls, plans, total_plan_time / calls AS "planMs", regexp_replace(query, '\\s+', ' ', 'g') AS query
     FROM pg_stat_statements WHERE calls >= 100 AND plans * 2 > calls ORDER BY total_plan_time DESC LIMIT 5`,
  );
  return rows.map(
    (row) =>
      `planned on ${row.plans} of ${row.calls} runs, ${row.planMs.toFixed(3)} ms each: ${row.query.slice(0, 100)}${row.query.length > 100 ? '…' : ''}`,
  );
}

/**
 * The resident set of a service just started with the production flags, then once it has served a few
 * seconds of reads and sign-ins and has been left alone 10 s: what an instance holds between peaks.
 */
async function measureIdleMemory(service: RunningService, load: LoadGenerator, defined: Scenario[]): Promise<IdleMemory> {
  // Idle is some seconds without a request: V8's memory reducer gives back what the load grew only
  // after several seconds without allocation.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10_000));
  await settle();
  const afterStartMb = Math.round(memoryOf(service.server.pid).rss);
  for (const scenario of defined.filter(({ id }) => ['items-by-id', 'items-list', 'auth-idp1', 'device-returning'].includes(id))) {
    await load.run({ url: service.url, connections: options.connections, duration: options.quick ? 1 : 3, requests: scenario.requests });
  }
  await settle();
  return { afterStartMb, afterWarmUpMb: Math.round(memoryOf(service.server.pid).rss) };
}

interface RunningService extends Target {
  logLevel: string;
}

async function startService(
  databaseUrl: string,
  provider: LocalProvider,
  logLevel: 'warn' | 'info',
  /** Settings of this start only, and the name of its log file (several may run at once). */
  variant: { env?: Record<string, string>; name?: string; openFiles?: number } = {},
): Promise<RunningService> {
  const port = await freePort();
  log(`starting the service (LOG_LEVEL=${logLevel}${variant.name ? `, ${variant.name}` : ''})`);
  const profiling = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'service')}`] : [];
  // Flags on the command line, after production's: a later V8 flag wins (NODE_OPTIONS would lose).
  const extra = options.nodeOptions?.split(/\s+/).filter(Boolean) ?? [];
  const server = launch('service', [...productionNodeFlags(root), ...extra, ...profiling, join(distCopy, 'src', 'main.js')], {
    // Not the project folder: main.ts would read a developer's .env from there.
    cwd: benchDir,
    logFile: join(benchDir, `${variant.name ?? 'service'}.log`),
    openFiles: variant.openFiles,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: benchDir,
      DATABASE_URL: databaseUrl,
      JWT_SECRET: JWT.secret,
      JWT_ISSUER: JWT.issuer,
      JWT_AUDIENCE: JWT.audience,
      DEVICE_ID_KEY,
      IDP1_JWKS_URL: provider.jwksUrl,
      IDP1_ISSUER: provider.issuer,
      LOG_LEVEL: logLevel,
      MATCHMAKER_ENABLED: 'false',
      // A load test from one address is exactly what a rate limiter is there to stop, and what the bounds
      // on the guest accounts an address makes (the new-devices route makes thousands) and on connections
      // per address (the open loop alone keeps up to 1,024) are there to stop too.
      RATE_LIMIT_ENABLED: 'false',
      GUEST_ACCOUNTS_PER_ADDRESS: '0',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1000000',
      // The leaderboard scenarios measure the in-process tree over two boards of a million records each.
      LEADERBOARD_RANKS_IN_MEMORY: '100000000',
      ...options.serviceEnv,
      ...variant.env,
    },
  });
  cleanups.push(() => server.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(server, `${url}/health/ready`);
  return { name: 'service', url, server, logLevel };
}

async function startBaseline(
  databaseUrl: string,
  name = 'baseline',
  env: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<Target> {
  const port = await freePort();
  log(`starting the baseline${name === 'baseline' ? '' : ` (${name})`}`);
  const profiling = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'baseline')}`] : [];
  const server = launch('baseline', [...nodeFlags, ...profiling, '--import', 'tsx', join(root, 'bench', 'baseline.ts')], {
    cwd: root,
    logFile: join(benchDir, `${name}.log`),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      JWT_SECRET: JWT.secret,
      JWT_ISSUER: JWT.issuer,
      JWT_AUDIENCE: JWT.audience,
      DEVICE_ID_KEY,
      ...env,
    },
  });
  cleanups.push(() => server.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(server, `${url}/health`);
  return { name: 'baseline', url, server };
}

interface Tokens {
  admin: string;
  players: string[];
  byUserUid: Map<string, string>;
  provider: string[];
}

async function mintTokens(data: SeedData, provider: LocalProvider): Promise<Tokens> {
  const byUserUid = new Map<string, string>();
  for (const user of [...data.players, ...data.traders, data.skillOwner]) byUserUid.set(user.uid, await signAccessToken(JWT, user));
  return {
    admin: await signAccessToken(JWT, data.admin, true),
    players: data.players.map((player) => byUserUid.get(player.uid)!),
    byUserUid,
    // idp1 tokens of seeded users: their sign-ins find the user (no account is created).
    provider: await Promise.all(data.signers.map((signer) => provider.issueToken(signer.subject))),
  };
}

/** The baseline is only a reference if it answers what the service answers: byte for byte, headers included. */
async function compareAnswers(service: Target, baseline: Target, data: SeedData, token: string): Promise<void> {
  const paths = [...data.itemUids.slice(0, 5).map((uid) => `/items/${uid}`), '/items?limit=100', '/items/count', STORAGE_READ_PATH];
  // Every header but those that differ from one answer to the next.
  const headers = (response: Response) =>
    JSON.stringify([...response.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id').sort());
  for (const path of paths) {
    const [ours, theirs] = await Promise.all(
      [service, baseline].map((target) => fetch(`${target.url}${path}`, { headers: authorization(token) })),
    );
    const [oursText, theirsText] = await Promise.all([ours.text(), theirs.text()]);
    if (ours.status !== 200 || oursText !== theirsText || headers(ours) !== headers(theirs)) {
      throw new Error(
        `the service and the baseline answer GET ${path} differently; update bench/baseline.ts to match the service\n` +
          `service  ${ours.status} ${headers(ours)}: ${oursText.slice(0, 400)}\n` +
          `baseline ${theirs.status} ${headers(theirs)}: ${theirsText.slice(0, 400)}`,
      );
    }
  }
  log(`the service and the baseline answer ${paths.length} requests identically`);
}

/** The open-loop measure's scenarios (bench/open-loop.ts) and their p99 goal at 50 % of the maximum (none for sign-ins). */
const OPEN_LOOP_SCENARIOS: Array<[id: string, p99BoundMs: number | undefined]> = [
  ['items-by-id', 20],
  ['items-list', 20],
  ['gifts', 50],
  ['auth-idp1', undefined],
];

/** Each player's own save, about 4 KB (bench/storage.ts). */
const STORAGE_READ_PATH = '/storage/saves/slot-1';
const JSON_BODY = { 'content-type': 'application/json' };

/** The headers of a request with our JWT, and of one that also sends a JSON body. */
const authorization = (token: string) => ({ authorization: `jwt ${token}` });
const json = (token: string) => ({ ...authorization(token), 'content-type': 'application/json' });

/** One gold coin from the pair's giver to its receiver. */
function giftRequest(pair: SeedData['giftPairs'][number], token: string, goldCoinUid: string): Request {
  return {
    method: 'POST',
    path: '/inventories/transaction',
    headers: json(token),
    body: JSON.stringify({
      personaOneUid: pair.giverPersonaUid,
      personaTwoUid: pair.receiverPersonaUid,
      personaOneInventoryItems: [{ itemUid: goldCoinUid, quantity: 1 }],
    }),
  };
}

/** The service's start on the seeded leaderboards against one on empty ones, in process and with Redis. */
interface LeaderboardStart {
  records: number;
  emptyStartMs: number;
  startMs: number;
  /** The rebuild alone (leaderboard_rank_rebuild_seconds in /metrics). */
  rebuildMs: number;
  emptyRssMb: number;
  rssMb: number;
  /** The peak (VmHWM) of the process that then served the leaderboard scenarios and the period end. */
  peakRssMb?: number;
  bytesPerRecord: number;
  loadavg: string;
  /** The start with REDIS_URL: Redis's own memory grows instead of the service's. */
  redis?: {
    startMs: number;
    rebuildMs: number;
    rssMb: number;
    redisUsedMb: number;
    bytesPerRecord: number;
    loadavg: string;
    /** A second start on the same, current sets, and what it rebuilt (0: nothing). */
    restartMs?: number;
    restartRebuildMs?: number;
  };
}

/** How long the service's rebuilds of its rank structure took, as its /metrics say. */
async function rebuildMilliseconds(url: string): Promise<number> {
  return Math.round((await scrapeMetrics(url))('leaderboard_rank_rebuild_seconds_sum') * 1000);
}

/** Redis's used_memory (INFO memory). */
async function redisUsedBytes(url: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return Number(/^used_memory:(\d+)/m.exec(await client.info('memory'))?.[1] ?? 0);
  } finally {
    client.disconnect();
  }
}

/** Measured after every other scenario, on a service that holds the seeded boards' records. */
const LEADERBOARD_SCENARIOS = [
  'leaderboard-top',
  'leaderboard-around',
  'leaderboard-me',
  'leaderboard-best',
  'leaderboard-increment',
] as const;

function leaderboardScenarios(
  tokens: Tokens,
  leaderboards: LeaderboardSeed,
): Array<Scenario & { id: (typeof LEADERBOARD_SCENARIOS)[number] }> {
  const board = `/leaderboards/${leaderboards.best}`;
  const scores = (path: string, score: (index: number) => number): Request[] =>
    Array.from({ length: 1000 }, (_, index) => ({
      method: 'POST',
      path,
      headers: json(tokens.players[index % tokens.players.length]),
      body: JSON.stringify({ score: score(index) }),
    }));
  return [
    {
      id: 'leaderboard-top',
      title: `Leaderboard top 100, ${leaderboards.records} records`,
      withBaseline: true,
      requests: tokens.players.map((token) => ({ method: 'GET', path: `${board}/records?limit=100`, headers: authorization(token) })),
    },
    {
      id: 'leaderboard-around',
      title: 'Leaderboard around a random persona (20)',
      withBaseline: true,
      requests: leaderboards.sample.map((persona, index) => ({
        method: 'GET',
        path: `${board}/records/around/${persona}?limit=20`,
        headers: authorization(tokens.players[index % tokens.players.length]),
      })),
    },
    {
      id: 'leaderboard-me',
      title: 'Leaderboard records/me',
      withBaseline: true,
      requests: tokens.players.map((token) => ({ method: 'GET', path: `${board}/records/me`, headers: authorization(token) })),
    },
    {
      id: 'leaderboard-best',
      title: 'Leaderboard scores, BEST',
      withBaseline: true,
      requests: scores(`${board}/records`, () => Math.floor(Math.random() * 1e9)),
    },
    {
      id: 'leaderboard-increment',
      title: 'Leaderboard scores, INCREMENT',
      withBaseline: true,
      requests: scores(`/leaderboards/${leaderboards.increment}/records`, () => 1 + Math.floor(Math.random() * 100)),
    },
  ];
}

function defineScenarios(
  data: SeedData,
  tokens: Tokens,
  pool: pg.Pool,
  settingsVersions: Map<string, string>,
  mediaFile: MediaFile,
): Scenario[] {
  const [traderA, traderB] = data.traders.map((trader) => trader.personaUids[0]);
  const [silver, copper] = data.tradeGoods;
  const skillPersona = data.skillOwner.personaUids[0];
  const skillPath = `/personas/${skillPersona}/archetypes/warrior/skills/swordplay`;

  const readItems: Request[] = data.itemUids.map((uid, index) => ({
    method: 'GET',
    path: `/items/${uid}`,
    headers: authorization(tokens.players[index % tokens.players.length]),
  }));
  const countCompleted = async (type: string, personaUids: string[], since: Date) =>
    (
      await pool.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM transactions
         WHERE type = $3 AND status = 'COMPLETED' AND "personaOneUid" = ANY($1::uuid[]) AND "dateCreated" >= $2`,
        [personaUids, since, type],
      )
    ).rows[0].count;
  const ledgerCheck = async (label: string, successes: number, since: Date, personaUids: string[], type = 'TRADE'): Promise<Check> => {
    const completed = await countCompleted(type, personaUids, since);
    const ledger = await checkLedger(pool);
    // No success at all would make every comparison hold: a check that cannot fail.
    const ok =
      successes > 0 &&
      completed === successes &&
      ledger.itemMismatches === 0 &&
      ledger.holdingMismatches === 0 &&
      ledger.negativeQuantities === 0;
    return {
      ok,
      summary:
        `verification run: ${completed} ${label} COMPLETED for ${successes} 2xx answers; after all rounds, ledger invariant ` +
        `violations: ${ledger.itemMismatches} items, ${ledger.holdingMismatches} holdings; negative quantities: ${ledger.negativeQuantities}`,
      details: { completed, successes, ...ledger },
    };
  };

  const scenarios: Scenario[] = [
    // No token, no database: what a request costs the service's pipeline itself (the floor under every route).
    { id: 'health', title: 'GET /health', withBaseline: true, requests: [{ method: 'GET', path: '/health', headers: {} }] },
    { id: 'items-by-id', title: 'GET /items/{id}', withBaseline: true, requests: readItems },
    // A 1 MB uploaded file, public (no token); the baseline serves the same bytes with @fastify/static.
    {
      id: 'media-file',
      title: 'GET /media/… (1 MB)',
      withBaseline: true,
      requests: [{ method: 'GET', path: mediaFile.path, headers: {} }],
    },
    // A CDN revalidating: compared with the baseline's GET /items/{id} (goals in bench/report.ts).
    {
      id: 'media-304',
      title: 'GET /media/… If-None-Match (304)',
      withBaseline: false,
      requests: [{ method: 'GET', path: mediaFile.path, headers: { 'if-none-match': mediaFile.etag } }],
    },
    {
      id: 'items-list',
      title: 'GET /items?limit=100',
      withBaseline: true,
      requests: tokens.players.map((token) => ({ method: 'GET', path: '/items?limit=100', headers: authorization(token) })),
    },
    {
      id: 'items-count',
      title: 'GET /items/count',
      withBaseline: true,
      requests: tokens.players.map((token) => ({ method: 'GET', path: '/items/count', headers: authorization(token) })),
    },
    {
      id: 'auth-idp1',
      title: 'GET /auth/idp1',
      withBaseline: true,
      requests: tokens.provider.map((token) => ({ method: 'GET', path: '/auth/idp1', headers: authorization(token) })),
    },
    {
      id: 'auth-refresh',
      title: 'POST /auth/refresh (rotation)',
      withBaseline: false,
      // Each connection signs in once, then keeps its session alive refresh after refresh.
      requests: tokens.provider.map((token) => ({ method: 'GET', path: '/auth/idp1', headers: authorization(token) })),
      chain: 'refresh',
    },
    {
      id: 'device-new',
      title: 'POST /auth/device, new devices',
      withBaseline: true,
      // Each request names a device never seen (bench/load.ts): every answer creates a guest account.
      requests: [{ method: 'POST', path: '/auth/device', headers: JSON_BODY, body: '{}' }],
      chain: 'new-device',
      verify: {
        check: async (successes, since) => {
          const { rows } = await pool.query<{ guests: number; whole: number }>(
            `SELECT count(*)::int AS guests,
                    count(*) FILTER (WHERE (SELECT count(*) FROM user_identities i WHERE i."userUid" = u.uid AND i.provider = 'device') = 1
                                       AND (SELECT count(*) FROM personas p WHERE p."userUid" = u.uid) = 1)::int AS whole
             FROM users u WHERE u.provider = 'device' AND u."dateCreated" >= $1`,
            [since],
          );
          const { guests, whole } = rows[0];
          return {
            ok: successes > 0 && guests === successes && whole === guests,
            summary: `verification run: ${guests} guests created for ${successes} 2xx answers, ${whole} with exactly one device and one persona`,
            details: { guests, whole, successes },
          };
        },
      },
    },
    {
      id: 'device-returning',
      title: `POST /auth/device, ${data.deviceIds.length} returning devices`,
      withBaseline: true,
      requests: data.deviceIds.map((deviceId) => ({
        method: 'POST',
        path: '/auth/device',
        headers: JSON_BODY,
        body: JSON.stringify({ deviceId }),
      })),
      verify: {
        check: async (successes, since) => {
          const { rows } = await pool.query<{ sessions: number; users: number }>(
            `SELECT (SELECT count(*)::int FROM auth_sessions WHERE provider = 'device' AND "dateCreated" >= $1) AS sessions,
                    (SELECT count(*)::int FROM users WHERE "dateCreated" >= $1) AS users`,
            [since],
          );
          const { sessions, users } = rows[0];
          return {
            ok: successes > 0 && sessions === successes && users === 0,
            summary: `verification run: ${sessions} device sessions opened for ${successes} 2xx answers, ${users} accounts created`,
            details: { sessions, users, successes },
          };
        },
      },
    },
    {
      id: 'items-create',
      title: 'POST /items (admin)',
      withBaseline: false,
      requests: Array.from({ length: 200 }, (_, index) => ({
        method: 'POST',
        path: '/items',
        headers: json(tokens.admin),
        body: JSON.stringify({
          name: `Bench blade ${index}`,
          description: 'Forged under load.',
          cost: 100 + index,
          stats: [
            { name: 'damage', value: index % 50 },
            { name: 'rarity', value: 'common' },
            { name: 'twoHanded', value: index % 2 === 0 },
          ],
        }),
      })),
    },
    {
      id: 'gifts',
      title: `Gifts, ${data.giftPairs.length} disjoint pairs`,
      withBaseline: true,
      requests: data.giftPairs.map((pair) => giftRequest(pair, tokens.byUserUid.get(pair.giver.uid)!, data.goldCoinUid)),
      verify: {
        check: (successes, since) =>
          ledgerCheck(
            'gifts',
            successes,
            since,
            data.giftPairs.map((pair) => pair.giverPersonaUid),
          ),
      },
    },
    {
      id: 'awards',
      title: `Awards (admin), ${data.giftPairs.length} personas`,
      withBaseline: true,
      requests: data.giftPairs.map((pair) => ({
        method: 'POST',
        path: '/inventories/transaction',
        headers: json(tokens.admin),
        body: JSON.stringify({
          type: 'AWARD',
          personaOneUid: pair.receiverPersonaUid,
          personaOneInventoryItems: [{ itemUid: data.goldCoinUid, quantity: 1 }],
        }),
      })),
      verify: {
        check: (successes, since) =>
          ledgerCheck(
            'awards',
            successes,
            since,
            data.giftPairs.map((pair) => pair.receiverPersonaUid),
            'AWARD',
          ),
      },
    },
    {
      id: 'trades',
      title: 'Trades, all on one pair',
      withBaseline: false,
      // Made by an admin, so processed at once (a player's two-sided trade waits for acceptance). Half
      // go each way, so that neither trader runs out.
      requests: [
        [traderA, traderB],
        [traderB, traderA],
      ].map(([one, two]) => ({
        method: 'POST',
        path: '/inventories/transaction',
        headers: json(tokens.admin),
        body: JSON.stringify({
          personaOneUid: one,
          personaTwoUid: two,
          personaOneInventoryItems: [{ itemUid: silver, quantity: 1 }],
          personaTwoInventoryItems: [{ itemUid: copper, quantity: 1 }],
        }),
      })),
      verify: { check: (successes, since) => ledgerCheck('trades', successes, since, [traderA, traderB]) },
    },
    {
      id: 'progress',
      title: 'AddProgress, one skill',
      withBaseline: false,
      requests: [
        {
          method: 'POST',
          path: `${skillPath}/progress`,
          headers: json(tokens.byUserUid.get(data.skillOwner.uid)!),
          body: JSON.stringify({ value: 1 }),
        },
      ],
      verify: {
        reset: async () => {
          await pool.query('DELETE FROM skill_progress WHERE "personaUid" = $1', [skillPersona]);
        },
        check: async (successes) => {
          const { rows } = await pool.query<{ progress: number }>(
            `SELECT progress FROM skill_progress WHERE "personaUid" = $1 AND "archetypeUid" = 'warrior' AND "skillUid" = 'swordplay'`,
            [skillPersona],
          );
          const progress = rows[0]?.progress ?? 0;
          return {
            ok: successes > 0 && progress === successes,
            summary: `verification run: progress ${progress} after ${successes} 2xx answers (${progress === successes ? 'no increment lost' : 'MISMATCH'})`,
            details: { progress, successes },
          };
        },
      },
    },
    ...storageScenarios(data, tokens, pool, settingsVersions),
  ];
  if (options.infoLog) {
    scenarios.push({
      id: 'items-by-id-info',
      title: 'GET /items/{id}, LOG_LEVEL=info',
      withBaseline: true,
      logLevel: 'info',
      requests: readItems,
    });
  }
  return scenarios;
}

/**
 * Cloud save (bench/storage.ts): a player's 4 KB save read by key, batches of 10 writes, conditional
 * single writes, and the same read again once 100,000 more owners of 20 objects each fill the table.
 */
function storageScenarios(data: SeedData, tokens: Tokens, pool: pg.Pool, settingsVersions: Map<string, string>): Scenario[] {
  const players = data.players.map((player, index) => ({ uid: player.uid, token: tokens.players[index] }));
  const readSaves: Request[] = players.map(({ token }) => ({ method: 'GET', path: STORAGE_READ_PATH, headers: authorization(token) }));
  // The usage rows the quotas are checked against must add up to the objects, however many batches raced.
  const usageCheck = async (label: string, successes: number, extra: Record<string, number> = {}): Promise<Check> => {
    const { rows } = await pool.query<{ drifted: number }>(
      `SELECT count(*)::int AS drifted FROM storage_usage u
       LEFT JOIN (SELECT "ownerUid", count(*) AS objects, sum(size) AS bytes FROM storage_objects GROUP BY "ownerUid") o USING ("ownerUid")
       WHERE u.objects <> coalesce(o.objects, 0) OR u.bytes <> coalesce(o.bytes, 0)`,
    );
    const ok = successes > 0 && rows[0].drifted === 0 && Object.values(extra).every((count) => count === 0);
    return {
      ok,
      summary:
        `verification run: ${successes} ${label} 2xx; owners whose usage differs from their objects: ${rows[0].drifted}` +
        Object.entries(extra)
          .map(([name, count]) => `; ${name}: ${count}`)
          .join(''),
      details: { successes, usageDrifted: rows[0].drifted, ...extra },
    };
  };
  const grownOwners = options.quick ? 10_000 : 100_000;
  return [
    { id: 'storage-read', title: 'GET /storage/{collection}/{key} (4 KB)', withBaseline: true, requests: readSaves },
    {
      id: 'storage-read-ghost',
      title: 'GET /storage/{collection}/{key} (a 62 KB ghost of 11,000 values)',
      withBaseline: true,
      requests: players.map(({ token }) => ({ method: 'GET', path: '/storage/saves/ghost', headers: authorization(token) })),
    },
    {
      id: 'storage-batch',
      title: 'PUT /storage, batches of 10',
      withBaseline: true,
      requests: players.map(({ token }, index) => ({
        method: 'PUT',
        path: '/storage',
        headers: json(token),
        body: JSON.stringify({
          objects: Array.from({ length: 10 }, (_, key) => ({
            collection: 'replays',
            key: `replay-${key}`,
            value: { map: `arena-${(index + key) % 12}`, frames: 'x'.repeat(300), score: key * 10 },
          })),
        }),
      })),
      verify: { check: (successes) => usageCheck('batches', successes) },
    },
    {
      id: 'storage-conditional',
      title: 'PUT /storage, one write on its version',
      withBaseline: true,
      // The value written again each time is the stored one, whose version is a hash of it: every
      // write states a version that still holds, and goes through the lock, the check and the upsert.
      requests: players.map(({ uid, token }) => ({
        method: 'PUT',
        path: '/storage',
        headers: json(token),
        body: JSON.stringify({
          objects: [{ collection: 'settings', key: 'audio', value: SETTINGS_VALUE, version: settingsVersions.get(uid) }],
        }),
      })),
      verify: {
        check: async (successes) => {
          const { rows } = await pool.query<{ changed: number }>(
            `SELECT count(*)::int AS changed FROM storage_objects WHERE collection = 'settings' AND key = 'audio' AND version <> ALL($1::text[])`,
            [[...settingsVersions.values()]],
          );
          return usageCheck('conditional writes', successes, { 'settings whose version moved': rows[0].changed });
        },
      },
    },
    {
      id: 'storage-read-grown',
      title: `GET /storage/{collection}/{key} (4 KB), ${grownOwners / 1000}k more owners × 20 objects`,
      withBaseline: true,
      prepare: async () => {
        await growStorageOwners(pool, grownOwners, log);
        const { objects, owners } = await countStorage(pool);
        log(`  storage: ${objects} objects of ${owners} owners`);
      },
      requests: readSaves,
    },
  ];
}

// Rounds of 3 s even in a quick run: at 512 connections the first answers take over a second to come back.
const scaleMeasurement = { warmup: options.quick ? 1 : 2, rounds: options.quick ? 1 : 2, duration: 3 };

/**
 * The scale curve (bench/scale.ts): in a database of its own, seeded with 100 items and 204 personas,
 * then grown to 10,000 items, to 100,000 personas (where the connection counts are measured, with 512
 * disjoint gift pairs so that even 512 connections never share one) and to 1,000,000 items.
 */
async function measureScaleCurve(
  adminUrl: string,
  provider: LocalProvider,
  load: LoadGenerator,
  postmasterPid: number,
): Promise<{ report: ScaleReport; serviceRssPeakMb: number; baselineRssPeakMb: number }> {
  log('scale curve: a database of its own, seeded small and grown between measurements');
  const admin = new pg.Pool({ connectionString: adminUrl, max: 1 });
  await admin.query('DROP DATABASE IF EXISTS bench_scale WITH (FORCE)');
  await admin.query('CREATE DATABASE bench_scale');
  const databaseUrl = adminUrl.replace(/\/postgres$/, '/bench_scale');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', (error) => log(`scale database pool: ${error.message}`));
  // The curve measures the work at each connection count, as the baseline does it: none shed.
  const service = await startService(databaseUrl, provider, 'warn', { name: 'service-scale', env: { HTTP_REQUESTS_IN_FLIGHT: '1024' } });
  const data = await seed(pool, { items: 100, players: 160, giftPairs: 80, signers: 0, devices: 0 });
  const baseline = await startBaseline(databaseUrl, 'baseline-scale');
  let pairs = data.giftPairs;

  const measureAt = async (connections: number): Promise<CurvePoint> => {
    const tokens = await Promise.all(pairs.map((pair) => signAccessToken(JWT, pair.giver)));
    const { rows } = await pool.query<{ uid: string }>('SELECT uid FROM items ORDER BY random() LIMIT 5000');
    const byId: Scenario = {
      id: 'scale-by-id',
      title: 'GET /items/{id}',
      withBaseline: true,
      requests: rows.map(({ uid }, index) => ({
        method: 'GET',
        path: `/items/${uid}`,
        headers: authorization(tokens[index % tokens.length]),
      })),
    };
    const gifts: Scenario = {
      id: 'scale-gifts',
      title: 'gifts',
      withBaseline: true,
      requests: pairs.map((pair, index) => giftRequest(pair, tokens[index], data.goldCoinUid)),
    };
    const figures = (report: ScenarioReport) => {
      const of = (summary: Summary) => ({ requestsPerSecond: Math.round(summary.requestsPerSecond), p99: Number(summary.p99.toFixed(1)) });
      return { service: of(report.service), baseline: of(report.baseline!) };
    };
    const measurement = { ...scaleMeasurement, connections };
    const point = {
      byId: figures(await runScenario(byId, service, baseline, load, pool, postmasterPid, measurement)),
      gifts: figures(await runScenario(gifts, service, baseline, load, pool, postmasterPid, measurement)),
    };
    log(
      `  ${connections} connections: GET /items/{id} ${point.byId.service.requestsPerSecond} vs ${point.byId.baseline.requestsPerSecond} req/s, ` +
        `gifts ${point.gifts.service.requestsPerSecond} vs ${point.gifts.baseline.requestsPerSecond} req/s`,
    );
    return point;
  };

  const dataConnections = 32;
  const dataPoints: ScaleReport['data']['points'] = [];
  const atThisSize = async (point?: CurvePoint) => {
    const counts = await countRows(pool);
    log(`scale curve: ${counts.items} items, ${counts.personas} personas`);
    dataPoints.push({ ...counts, ...(point ?? (await measureAt(dataConnections))) });
  };
  await atThisSize();
  await growItems(pool, options.quick ? 1000 : 10_000, data.admin.uid);
  await atThisSize();
  pairs = await growPersonas(pool, options.quick ? 10_000 : 100_000, 512, data.goldCoinUid, data.admin.uid);
  const connectionData = await countRows(pool);
  log(`scale curve: by connections, at ${connectionData.items} items and ${connectionData.personas} personas`);
  const connectionPoints: ScaleReport['connections']['points'] = [];
  for (const connections of [1, 8, 32, 128, 512]) connectionPoints.push({ connections, ...(await measureAt(connections)) });
  await atThisSize(connectionPoints.find((point) => point.connections === dataConnections));
  await growItems(pool, options.quick ? 100_000 : 1_000_000, data.admin.uid);
  await atThisSize();

  const ledger = await checkLedger(pool);
  const serviceRssPeakMb = memoryOf(service.server.pid).peak;
  const baselineRssPeakMb = memoryOf(baseline.server.pid).peak;
  await Promise.all([service.server.stop(), baseline.server.stop()]);
  await pool.end();
  // A million items take a gigabyte of disk: not kept for the next run, which seeds again anyway.
  await admin.query('DROP DATABASE bench_scale WITH (FORCE)');
  await admin.end();
  return {
    report: {
      connections: { ...connectionData, points: connectionPoints },
      data: { connections: dataConnections, points: dataPoints },
      ledger,
    },
    serviceRssPeakMb,
    baselineRssPeakMb,
  };
}

/** Deadlocks PostgreSQL has detected (and broken) in the bench database so far. */
async function deadlocks(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ deadlocks: string }>(`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`);
  return Number(rows[0].deadlocks);
}

/**
 * Cancels the statements the baseline still runs when its round ends: the load generator stops waiting,
 * but PostgreSQL goes on with what it was asked (the leaderboards' rank counts over a million rows, up to
 * their 5 s cap, 32 at a time), and would run into the service's round.
 */
async function cancelBaselineLeftovers(pool: pg.Pool): Promise<void> {
  // Again until none is left: the baseline's own pool queues requests beyond its connections, and each
  // starts as the one before it is cancelled.
  for (let quiet = 0, attempt = 0; quiet < 3 && attempt < 300; attempt++) {
    const { rowCount } = await pool.query(
      `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'bench-baseline' AND state = 'active' AND pid <> pg_backend_pid()`,
    );
    quiet = rowCount ? 0 : quiet + 1;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How a scenario is measured: the run's options, or the scale curve's shorter settings. */
interface Measurement {
  connections: number;
  warmup: number;
  rounds: number;
  duration: number;
}

async function runScenario(
  scenario: Scenario,
  service: Target,
  baseline: Target,
  load: LoadGenerator,
  pool: pg.Pool,
  postmasterPid: number,
  measurement: Measurement = options,
): Promise<ScenarioReport> {
  const rounds: Round[] = [];
  const targets = scenario.withBaseline ? [service, baseline] : [service];
  const measure = async (target: Target, round: number, seconds: number) => {
    target.server.assertRunning();
    const memory = sampleMemory(target.server.pid);
    const cpuBefore = cpuMillisecondsOf(target.server.pid);
    const databaseCpuBefore = postgresCpuMilliseconds(postmasterPid);
    const result = await load.run({
      url: target.url,
      connections: measurement.connections,
      duration: seconds,
      requests: scenario.requests,
      chain: scenario.chain,
    });
    target.server.assertRunning();
    const cpuMilliseconds = cpuMillisecondsOf(target.server.pid) - cpuBefore;
    const databaseCpuMilliseconds = postgresCpuMilliseconds(postmasterPid) - databaseCpuBefore;
    rounds.push({
      target: target.name,
      round,
      load: result,
      rssMb: memory.stop(),
      cpuMsPerRequest: result.responses ? cpuMilliseconds / result.responses : NaN,
      databaseCpuMsPerRequest: result.responses ? databaseCpuMilliseconds / result.responses : NaN,
    });
  };
  const measureAlone = async (target: Target, round: number, seconds: number) => {
    await measure(target, round, seconds);
    if (target === baseline) await cancelBaselineLeftovers(pool);
  };
  for (const target of targets) await measureAlone(target, 0, measurement.warmup);
  for (let round = 1; round <= measurement.rounds; round++) {
    for (const target of targets) await measureAlone(target, round, measurement.duration);
  }
  const serviceSummary = summarise(rounds.filter((round) => round.target === 'service'));
  const baselineSummary = scenario.withBaseline ? summarise(rounds.filter((round) => round.target === 'baseline')) : undefined;
  let check: Check | undefined;
  if (scenario.verify) {
    // Let the requests cut off at the end of the last round finish first.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await scenario.verify.reset?.();
    // Truncated: stored times are rounded to milliseconds, and must not fall before this.
    const since = (await pool.query<{ now: Date }>(`SELECT date_trunc('milliseconds', now()) AS now`)).rows[0].now;
    const amount = measurement.connections * (options.quick ? 5 : 20);
    const deadlocksBefore = await deadlocks(pool);
    const run = await load.run({
      url: service.url,
      connections: measurement.connections,
      duration: 1,
      amount,
      maxSeconds: 60,
      requests: scenario.requests,
      chain: scenario.chain,
    });
    const successes = Object.entries(run.statusCounts).reduce((sum, [status, count]) => sum + (status.startsWith('2') ? count : 0), 0);
    check = await scenario.verify.check(successes, since);
    const deadlocksDuring = (await deadlocks(pool)) - deadlocksBefore;
    check.details = {
      ...check.details,
      verificationRequests: amount,
      verificationStatuses: run.statusCounts,
      verificationErrors: run.errors,
      verificationSeconds: Number(run.seconds.toFixed(1)),
      deadlocksDetected: deadlocksDuring,
    };
    check.summary += `; ${deadlocksDuring} deadlocks detected by PostgreSQL`;
    if (run.errors > 0 || run.responses !== amount) {
      check.ok = false;
      check.summary += ` (verification run: ${run.responses} of ${amount} answered, ${run.errors} errors)`;
    }
  }
  return {
    id: scenario.id,
    title: scenario.title,
    service: serviceSummary,
    baseline: baselineSummary,
    ratio: baselineSummary ? serviceSummary.requestsPerSecond / baselineSummary.requestsPerSecond : undefined,
    check,
    rounds: roundFigures(rounds),
  };
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
