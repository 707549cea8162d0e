import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

/** What the matchmaking measurement found (README "Performance"). */
export interface MatchmakingReport {
  tickets: number;
  runs: Array<{
    instances: number;
    /** Tickets matched, and seconds from the queue's commit until the last of them was seen matched. */
    matched: number;
    seconds: number;
    ticketsPerSecond: number;
    /** Mean skill difference between the two players of a match. */
    meanDistance: number;
  }>;
  /** The greedy nearest-neighbour reference on the same tickets: each, oldest first, with its closest compatible unmatched ticket. */
  reference: { matched: number; meanDistance: number; milliseconds: number };
}

interface Options {
  pool: pg.Pool;
  tickets: number;
  instanceCounts: number[];
  /** Starts `count` service instances running the matchmaker; resolves once they are ready. */
  startInstances: (count: number) => Promise<{ stop: () => Promise<void> }>;
  log: (message: string) => void;
}

interface BenchTicket {
  /** A user of its own, who hosts the ticket (so that the matchmaker's events have a real recipient). */
  player: string;
  skill: number;
}

const RANGE = 200;
/** How often the run counts matched tickets: the resolution of its time. */
const POLL_MS = 20;
const FIRST_MATCH_TIMEOUT_MS = 60_000;
const SKILL_MAX = 3000;

/** A deterministic generator (Park-Miller), so that every run and the reference see the same queue. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

/**
 * The queue of launch day: `tickets` players waiting for a 1v1, each with a random skill and a
 * criterion of ±200 around it, all queued at once (their creation times a millisecond apart, so that
 * "oldest first" is defined). Relaxation is off, so which tickets can match does not change while the
 * run waits: the time is until nothing more can be matched.
 */
export async function measureMatchmaking(options: Options): Promise<MatchmakingReport> {
  const { pool, log } = options;
  const next = random(20261124);
  const queue: BenchTicket[] = Array.from({ length: options.tickets }, () => ({
    player: randomUUID(),
    skill: Math.floor(next() * SKILL_MAX),
  }));
  await pool.query(
    `INSERT INTO users (uid, provider, subject, name) SELECT player, 'idp1', 'queued-' || player, 'queued' FROM unnest($1::uuid[]) AS player`,
    [queue.map((ticket) => ticket.player)],
  );

  const started = performance.now();
  const reference = greedyReference(queue);
  const referenceMs = performance.now() - started;

  const runs: MatchmakingReport['runs'] = [];
  for (const instances of options.instanceCounts) {
    await pool.query('DELETE FROM tickets');
    await pool.query('DELETE FROM sessions');
    const running = await options.startInstances(instances);
    try {
      log(`matchmaking: ${options.tickets} tickets, ${instances} instance(s)`);
      await insertQueue(pool, queue);
      // From the queue's commit to the last new match seen, on this process's clock, polled often
      // (the tickets' dateModified is their transaction's start, which may precede the queue's commit).
      const queuedAt = performance.now();
      let last = { matched: -1, at: queuedAt };
      // A pass commits its matches at once, so nothing shows until the first pass ends: wait for it.
      while (last.matched <= 0 ? performance.now() - queuedAt < FIRST_MATCH_TIMEOUT_MS : performance.now() - last.at < 3000) {
        await sleep(POLL_MS);
        const { rows } = await pool.query<{ matched: number }>(`SELECT count(*)::int AS matched FROM tickets WHERE status = 'MATCH_FOUND'`);
        if (rows[0].matched !== last.matched) last = { matched: rows[0].matched, at: performance.now() };
      }
      const seconds = (last.at - queuedAt) / 1000;
      runs.push({
        instances,
        matched: last.matched,
        seconds: round(seconds, 2),
        ticketsPerSecond: Math.round(last.matched / seconds),
        meanDistance: round(await meanDistanceInMatches(pool), 2),
      });
    } finally {
      await running.stop();
    }
  }
  await pool.query('DELETE FROM tickets');
  await pool.query('DELETE FROM sessions');
  await pool.query('DELETE FROM users WHERE uid = ANY($1::uuid[])', [queue.map((ticket) => ticket.player)]);
  return { tickets: options.tickets, runs, reference: { ...reference, milliseconds: Math.round(referenceMs) } };
}

/** Queues every ticket in one statement. */
async function insertQueue(pool: pg.Pool, queue: BenchTicket[]): Promise<void> {
  await pool.query(
    `INSERT INTO tickets ("numTeams", "teamSize", "numUsers", users, accepted, "hostUid", statistics, criteria, "dateCreated", "expiresAt")
     SELECT 2, 1, 1, ARRAY[player], ARRAY[player], player,
            jsonb_build_array(jsonb_build_object('name', 'skill', 'value', skill)),
            jsonb_build_array(jsonb_build_object('name', 'skill', 'minValue', skill - $3::int, 'maxValue', skill + $3::int)),
            now() - make_interval(secs => (cardinality($1::int[]) - position) / 1000.0), now() + interval '1 hour'
     FROM unnest($1::int[], $2::uuid[]) WITH ORDINALITY AS queued(skill, player, position)`,
    [queue.map((ticket) => ticket.skill), queue.map((ticket) => ticket.player), RANGE],
  );
}

async function meanDistanceInMatches(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ distance: number }>(
    `SELECT avg(distance)::float8 AS distance FROM (
       SELECT max((statistics -> 0 ->> 'value')::int) - min((statistics -> 0 ->> 'value')::int) AS distance
       FROM tickets WHERE status = 'MATCH_FOUND' GROUP BY "sessionUid"
     ) AS matches`,
  );
  return rows[0].distance ?? NaN;
}

/** Greedy nearest neighbour: each ticket, oldest first, takes its closest unmatched ticket within both ranges. */
function greedyReference(queue: BenchTicket[]): { matched: number; meanDistance: number } {
  const used = new Uint8Array(queue.length);
  let pairs = 0;
  let total = 0;
  for (let anchor = 0; anchor < queue.length; anchor++) {
    if (used[anchor]) continue;
    let best = -1;
    for (let other = 0; other < queue.length; other++) {
      if (other === anchor || used[other]) continue;
      const gap = Math.abs(queue[anchor].skill - queue[other].skill);
      if (gap <= RANGE && (best < 0 || gap < Math.abs(queue[anchor].skill - queue[best].skill))) best = other;
    }
    if (best < 0) continue;
    used[anchor] = used[best] = 1;
    pairs += 1;
    total += Math.abs(queue[anchor].skill - queue[best].skill);
  }
  return { matched: pairs * 2, meanDistance: round(total / pairs, 2) };
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));
