import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';
import { BackgroundJobs, type ScheduledJob } from '../../metrics/background-jobs.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { RedisConnection } from '../../redis/redis.connection.js';
import { ChangeCursor, type RankChange } from './change-cursor.js';
import { CHANGE_BATCH, LeaderboardRanksRepository } from './leaderboard-ranks.repository.js';
import type { RankMoment, RankIndex, StandingRead } from './rank-index.js';
import { SharedRun } from './shared-run.js';

/**
 * The keys of one database's rank sets. The namespace is that database's identity (its cluster's
 * system identifier and its name), so that deployments sharing a Redis (staging beside production, the
 * test suites) never apply one another's logs or sweep one another's periods. One hash tag for every
 * key: the scripts touch several, which Redis Cluster allows within one slot.
 */
class RankKeys {
  readonly prefix: string;
  readonly state: string;
  readonly periods: string;
  readonly lock: string;

  constructor(database: string) {
    this.prefix = `leaderboard-ranks:{lb:${createHash('sha256').update(database).digest('hex').slice(0, 16)}}:`;
    this.state = `${this.prefix}state`;
    this.periods = `${this.prefix}periods`;
    this.lock = `${this.prefix}rebuilding`;
  }

  ranked(period: string): string {
    return `${this.prefix}p:${period}`;
  }

  early(period: string): string {
    return `${this.prefix}e:${period}`;
  }

  building(period: string): string {
    return `${this.prefix}b:${period}`;
  }
}

const SWEEP_MS = 10_000;
const CATCH_UP_MS = 1000;
const MAX_AWAITED = 100_000;
/** A rebuild holds the lock at most this long (another instance takes over past it). */
const LOCK_MS = 120_000;
/** Keys one ZADD carries while a rebuild loads a period, and how many such commands are sent before waiting. */
const LOAD_CHUNK = 10_000;
const LOAD_IN_FLIGHT = 4;
/** A loading command waits behind the others in flight: longer than a request's command may take. */
const LOAD_TIMEOUT_MS = 30_000;

/**
 * Applies a batch of the log if the state is still the one the batch was computed from (its token):
 * each instance computes what is fresh from the shared cursor, and only one of two racing instances
 * applies it, so every change is applied exactly once. A removal that comes before its addition is
 * remembered and cancels it, as the in-process RankSet does. Every member has score 0: a sorted set
 * orders equal scores by the members' bytes, which is the rank keys' order, so ranks are exact for
 * the whole 64-bit range (a double score would keep 53 bits).
 */
const APPLY = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
for i = 6, #ARGV, 3 do
  local set, early = ARGV[5] .. 'p:' .. ARGV[i], ARGV[5] .. 'e:' .. ARGV[i]
  if ARGV[i + 1] ~= '' and redis.call('ZREM', set, ARGV[i + 1]) == 0 then redis.call('SADD', early, ARGV[i + 1]) end
  if ARGV[i + 2] ~= '' and redis.call('SREM', early, ARGV[i + 2]) == 0 then redis.call('ZADD', set, 0, ARGV[i + 2]) end
  redis.call('SADD', KEYS[2], ARGV[i])
end
redis.call('HSET', KEYS[1], 'token', ARGV[2], 'cursor', ARGV[3], 'caughtUpAt', ARGV[4])
return 1`;

const RANKS = `
local ranks = { redis.call('ZCARD', KEYS[1]) }
for i = 1, #ARGV do ranks[i + 1] = redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. ARGV[i]) + 1 end
return ranks`;

const AROUND = `
local key, limit = ARGV[1], tonumber(ARGV[2])
local before = redis.call('ZREVRANGEBYLEX', KEYS[1], '(' .. key, '-', 'LIMIT', 0, math.floor((limit - 1) / 2))
local after = redis.call('ZRANGEBYLEX', KEYS[1], '(' .. key, '+', 'LIMIT', 0, limit - 1 - #before)
if #before + #after < limit - 1 then
  before = redis.call('ZREVRANGEBYLEX', KEYS[1], '(' .. key, '-', 'LIMIT', 0, limit - 1 - #after)
end
local first = before[#before] or key
return { redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. first) + 1, redis.call('ZCARD', KEYS[1]), before, after }`;

const PAGE = `
local from = ARGV[1] == '' and '-' or '(' .. ARGV[1]
return { redis.call('HGET', KEYS[2], 'cursor') or '', redis.call('ZCARD', KEYS[1]),
         redis.call('ZRANGEBYLEX', KEYS[1], from, '+', 'LIMIT', 0, tonumber(ARGV[2])) }`;

const STANDING = `
local present = ARGV[2] ~= '' and redis.call('ZSCORE', KEYS[1], ARGV[2]) ~= false
local top = tonumber(ARGV[3])
local atTop = top > 0 and redis.call('ZRANGE', KEYS[1], top - 1, top - 1) or {}
return { redis.call('ZCARD', KEYS[1]), present and 1 or 0,
         ARGV[1] ~= '' and redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. ARGV[1]) + 1 or 0,
         present and redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. ARGV[2]) + 1 or 0, atTop[1] or '' }`;

const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

interface SharedState {
  token: string;
  cursor: ChangeCursor;
  caughtUpAt: number;
}

/**
 * The ranks of every open period in Redis sorted sets (REDIS_URL), one per period, shared by every
 * instance: PostgreSQL stays the truth, and the sets follow the same log of rank-key changes as the
 * tree of InProcessRankIndex. The log's cursor lives beside them (the state hash) and a batch is
 * applied only over the state it was computed from, so the sets are the log applied exactly once. Missing
 * (Redis restarted empty), too far behind for the log (LEADERBOARD_LOG_RETENTION) or with too many
 * gaps, they are rebuilt from a PostgreSQL snapshot by one instance while the others wait for it.
 * A read catches up first, as in process, so every instance answers the same ranks. A failed command
 * throws: FailoverRankIndex then answers from the in-process structure until Redis is back.
 */
@Injectable()
export class RedisRankIndex implements RankIndex {
  private readonly logger = new Logger('RedisRankIndex');
  private readonly catchUps = new SharedRun(() => this.run());
  private readonly retentionMs: number;
  private readonly shas = new Map<string, string>();
  private rankKeys?: RankKeys;
  /** Its periodic jobs while it is started: catching up with the log, and sweeping closed periods. */
  private following: ScheduledJob[] | undefined;

  constructor(
    private readonly log: LeaderboardRanksRepository,
    private readonly connection: RedisConnection,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.retentionMs = config.leaderboards.logRetentionSeconds * 1000;
  }

  /** Whether REDIS_URL is set. */
  get configured(): boolean {
    return this.connection.client !== undefined;
  }

  /** Catches up now and every second after (an idle deployment stays current), and sweeps closed periods. */
  async start(): Promise<void> {
    this.following ??= [
      this.jobs.schedule({ name: 'leaderboard-redis-catch-up', everyMs: CATCH_UP_MS, run: () => this.catchUp() }),
      this.jobs.schedule({ name: 'leaderboard-redis-sweep', everyMs: SWEEP_MS, run: () => this.sweep() }),
    ];
    await this.catchUp();
  }

  async stop(): Promise<void> {
    const following = this.following ?? [];
    this.following = undefined;
    await Promise.all(following.map((job) => job.stop()));
    await this.catchUps.settled();
  }

  catchUp(): Promise<void> {
    return this.catchUps.request();
  }

  async ranks(period: string, keys: string[]): Promise<{ size: number; ranks: number[] }> {
    await this.catchUp();
    const [size, ...ranks] = (await this.script(RANKS, [(await this.keys()).ranked(period)], keys)) as number[];
    return { size, ranks };
  }

  async around(period: string, key: string, limit: number): Promise<{ keys: string[]; firstRank: number; size: number }> {
    await this.catchUp();
    const [firstRank, size, before, after] = (await this.script(AROUND, [(await this.keys()).ranked(period)], [key, limit])) as [
      number,
      number,
      string[],
      string[],
    ];
    return { keys: [...before.reverse(), key, ...after], firstRank, size };
  }

  async page(period: string, after: string | undefined, count: number): Promise<{ keys: string[]; size: number; moment: RankMoment }> {
    await this.catchUp();
    const at = await this.keys();
    const [cursor, size, keys] = (await this.script(PAGE, [at.ranked(period), at.state], [after ?? '', count])) as [
      string,
      number,
      string[],
    ];
    const moment = cursor === '' ? new ChangeCursor() : ChangeCursor.parse(cursor);
    return { keys, size, moment: { after: moment.after, awaited: moment.awaited } };
  }

  async standing(period: string, key: string | null, oldKey: string | null, top: number): Promise<StandingRead> {
    const [size, present, rank, oldRank, atTop] = (await this.script(
      STANDING,
      [(await this.keys()).ranked(period)],
      [key ?? '', oldKey ?? '', top],
    )) as [number, number, number, number, string];
    return { size, present: present === 1, rank, oldRank, atTop: atTop === '' ? undefined : atTop };
  }

  /** This database's keys: its identity is read once, on first use. */
  private async keys(): Promise<RankKeys> {
    return (this.rankKeys ??= new RankKeys(await this.log.databaseIdentity()));
  }

  private get client(): Redis {
    if (!this.connection.client) throw new Error('REDIS_URL is not set');
    return this.connection.client;
  }

  private async run(): Promise<void> {
    for (;;) {
      const state = await this.state();
      if (!state || this.stale(state)) {
        await this.rebuild(state === undefined ? 'missing' : 'behind');
        continue;
      }
      const { cursor } = state;
      const batch = await this.log.changesAfter(cursor.after, cursor.awaited);
      const now = Date.now();
      const fresh = cursor.take(batch, now);
      cursor.forget(now - this.retentionMs);
      // Nothing new, and the state says recently enough that it is current: the sets hold every change committed before the call.
      if (fresh.length === 0 && batch.length < CHANGE_BATCH && now - state.caughtUpAt < this.retentionMs / 4) return;
      const applied = await this.apply(state.token, cursor, now, fresh);
      if (applied && batch.length < CHANGE_BATCH) return;
    }
  }

  private async state(): Promise<SharedState | undefined> {
    const { token, cursor, caughtUpAt } = await this.client.hgetall((await this.keys()).state);
    if (!token || !cursor) return undefined;
    return { token, cursor: ChangeCursor.parse(cursor), caughtUpAt: Number(caughtUpAt) };
  }

  private stale(state: SharedState): boolean {
    return Date.now() - state.caughtUpAt > this.retentionMs / 2 || state.cursor.awaited.length >= MAX_AWAITED;
  }

  /** Applies `fresh` over the state `token`; false when another instance moved the state first. */
  private async apply(token: string, cursor: ChangeCursor, now: number, fresh: RankChange[]): Promise<boolean> {
    const changes = fresh.flatMap((change) => [change.periodUid, change.removed ?? '', change.added ?? '']);
    const at = await this.keys();
    const done = await this.script(APPLY, [at.state, at.periods], [token, randomUUID(), cursor.serialize(), now, at.prefix, ...changes]);
    return done === 1;
  }

  /**
   * Loads every open period from a PostgreSQL snapshot into fresh sets, then swaps them in with the
   * snapshot's cursor in one MULTI. One instance rebuilds (a lock); the others wait for it.
   */
  private async rebuild(why: string): Promise<void> {
    const owner = randomUUID();
    const at = await this.keys();
    if ((await this.client.set(at.lock, owner, 'PX', LOCK_MS, 'NX')) !== 'OK') {
      const deadline = Date.now() + LOCK_MS;
      while ((await this.client.exists(at.lock)) === 1) {
        if (Date.now() > deadline) throw new Error('the Redis rank structure is being rebuilt for too long');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return;
    }
    try {
      const started = Date.now();
      const snapshot = await this.log.snapshot();
      const keys = await this.load(at, snapshot.periods);
      const swap = this.client.multi();
      for (const period of await this.client.smembers(at.periods)) {
        if (!snapshot.periods.has(period)) swap.unlink(at.ranked(period), at.early(period));
      }
      swap.unlink(at.periods);
      for (const [period, sorted] of snapshot.periods) {
        swap.unlink(at.ranked(period), at.early(period));
        if (sorted.length > 0) swap.rename(at.building(period), at.ranked(period));
        swap.sadd(at.periods, period);
      }
      swap.hset(at.state, { token: randomUUID(), cursor: new ChangeCursor(snapshot.after).serialize(), caughtUpAt: Date.now() });
      const results = await swap.exec();
      const failed = results?.find(([error]) => error !== null);
      if (!results || failed) throw new Error(`the rebuilt rank sets could not be swapped in: ${failed?.[0]?.message ?? 'aborted'}`);
      this.metrics.countLeaderboardRebuild(Date.now() - started, keys);
      this.logger.log(
        `Redis rank structure rebuilt (${why}): ${keys} records in ${snapshot.periods.size} open periods, ${Date.now() - started} ms`,
      );
    } finally {
      await this.script(UNLOCK, [at.lock], [owner]).catch(() => undefined);
    }
  }

  /** Loads each period's keys into a set of its own beside the live one, over a connection of the rebuild's own. */
  private async load(at: RankKeys, periods: Map<string, string[]>): Promise<number> {
    const loader = this.client.duplicate({ commandTimeout: LOAD_TIMEOUT_MS, lazyConnect: true });
    let keys = 0;
    try {
      await loader.connect();
      for (const [period, sorted] of periods) {
        await loader.unlink(at.building(period));
        const inFlight: Promise<unknown>[] = [];
        for (let from = 0; from < sorted.length; from += LOAD_CHUNK) {
          const members: (string | number)[] = [];
          for (const key of sorted.slice(from, from + LOAD_CHUNK)) members.push(0, key);
          inFlight.push(loader.zadd(at.building(period), ...members));
          if (inFlight.length >= LOAD_IN_FLIGHT) await Promise.all(inFlight.splice(0));
        }
        await Promise.all(inFlight);
        keys += sorted.length;
      }
      return keys;
    } finally {
      loader.disconnect();
    }
  }

  /** Drops the sets of periods that closed or were deleted (their ranks are final in PostgreSQL). */
  private async sweep(): Promise<void> {
    const at = await this.keys();
    const periods = await this.client.smembers(at.periods);
    const open = await this.log.stillOpen(periods);
    const sweep = this.client.multi();
    for (const period of periods) if (!open.has(period)) sweep.unlink(at.ranked(period), at.early(period)).srem(at.periods, period);
    for (const period of open) sweep.zcard(at.ranked(period));
    const results = (await sweep.exec()) ?? [];
    const counts = results.slice(results.length - open.size).map(([, count]) => Number(count));
    this.metrics.leaderboardRankedRecords.set(counts.reduce((sum, count) => sum + count, 0));
  }

  /** Runs a Lua script by its digest, sending its text only the first time Redis does not know it. */
  private async script(source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    let sha = this.shas.get(source);
    if (!sha) this.shas.set(source, (sha = createHash('sha1').update(source).digest('hex')));
    try {
      return await this.client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error as Error).message.startsWith('NOSCRIPT')) throw error;
      return this.client.eval(source, keys.length, ...keys, ...args);
    }
  }
}
