import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { call, Cluster, type Reply, tally, waitUntil } from './cluster.js';
import { economyViolations } from './invariants.js';

/**
 * Leaderboards on three instances over one PostgreSQL, with Redis: every instance answers the ranks
 * PostgreSQL's records give, under writes spread over all of them, from the Redis sorted sets they
 * share, then from their in-process trees with Redis killed mid-run, then from the sets rebuilt once
 * Redis is back (empty); and a tournament's prizes are paid exactly once when an instance is SIGKILLed
 * while paying them.
 */
const INSTANCES = 3;
const PLAYERS = 30;

describe('leaderboards across instances', () => {
  let cluster: Cluster;
  let admin: string;
  const players: Array<{ token: string; persona: string }> = [];
  let turn = 0;
  const next = () => cluster.instances[turn++ % INSTANCES].url;

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(INSTANCES, { LEADERBOARD_INTERVAL: '100', LEADERBOARD_CLOSE_DELAY: '500' }, { redis: true });
    admin = await cluster.signIn('admin');
    for (let index = 0; index < PLAYERS; index++) {
      const token = await cluster.signIn(`ranked-${index}`, cluster.instances[index % INSTANCES]);
      players.push({ token, persona: (await call(cluster.instances[0].url, 'GET', '/personas', token)).body[0].uid });
    }
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  /** The ranks as PostgreSQL's records give them: score, then subscore, then who reached it first. */
  async function ranksInDatabase(board: string): Promise<Array<{ personaUid: string; rank: number; score: number }>> {
    const { rows } = await cluster.db.query(
      `SELECT "personaUid", score::int AS score FROM leaderboard_records
        WHERE "leaderboardUid" = $1 AND score IS NOT NULL AND NOT hidden ORDER BY score DESC, subscore DESC, reached, "personaUid"`,
      [board],
    );
    return rows.map((row: { personaUid: string; score: number }, index) => ({ ...row, rank: index + 1 }));
  }

  /** What each instance answers: the whole board (30 records, one page), and each player's own record. */
  async function ranksOfEveryInstance(board: string) {
    return Promise.all(
      cluster.instances.map(async (instance) => {
        const page = await call(instance.url, 'GET', `/leaderboards/${board}/records?limit=100`, admin);
        expect(page.status).toBe(200);
        const mine = await Promise.all(
          players
            .slice(0, 5)
            .map(async (player) => (await call(instance.url, 'GET', `/leaderboards/${board}/records/me`, player.token)).body[0]),
        );
        return {
          page: (page.body as Array<{ personaUid: string; rank: number; score: number; rankCount: number }>).map(
            ({ personaUid, rank, score }) => ({ personaUid, rank, score }),
          ),
          mine: mine.map((record: { personaUid: string; rank: number }) => ({ personaUid: record.personaUid, rank: record.rank })),
        };
      }),
    );
  }

  /** `writers` loops of random INCREMENTs over the players, through every instance, `count` in all. */
  async function scoreStorm(board: string, count: number, writers = 12): Promise<Reply[]> {
    const replies: Reply[] = [];
    let left = count;
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (left-- > 0) {
          const player = players[Math.floor(Math.random() * PLAYERS)];
          replies.push(
            await call(next(), 'POST', `/leaderboards/${board}/records`, player.token, { score: 1 + Math.floor(Math.random() * 50) }),
          );
        }
      }),
    );
    return replies;
  }

  /** The period's sorted set in Redis, as persona uids in rank order (the keys end with the persona's 32 hex digits). */
  async function ranksInRedis(board: string): Promise<string[]> {
    const [{ periodUid }] = (
      await cluster.db.query(`SELECT uid AS "periodUid" FROM leaderboard_periods WHERE "leaderboardUid" = $1`, [board])
    ).rows as Array<{ periodUid: string }>;
    const redis = new Redis(cluster.redis!.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      // One database, one namespace of keys (its identity's hash): the period's set is the one key of that name.
      const [set, ...others] = await redis.keys(`leaderboard-ranks:*:p:${periodUid}`);
      expect(others).toEqual([]);
      const keys = await redis.zrange(set, 0, -1);
      return keys.map((key) => key.slice(48).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'));
    } finally {
      redis.disconnect();
    }
  }

  const fallbacks = async () => {
    let total = 0;
    for (const instance of cluster.instances) {
      const metrics = (await call(instance.url, 'GET', '/metrics', admin)).body as string;
      total += Number(/^redis_fallbacks_total\{component="leaderboard_ranks"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    }
    return total;
  };

  const everyInstanceInRedis = async () => {
    for (const instance of cluster.instances) {
      const metrics = (await call(instance.url, 'GET', '/metrics', admin)).body as string;
      if (!/^leaderboard_ranks_in_redis 1$/m.test(metrics)) return false;
    }
    return true;
  };

  it('answers the same ranks on every instance under writes, and still right with Redis killed mid-run', async () => {
    const board = (await call(next(), 'POST', '/leaderboards', admin, { name: 'Across instances', operator: 'INCREMENT' })).body
      .uid as string;
    expect(tally(await scoreStorm(board, 600))).toEqual({ 200: 600 });
    let expected = await ranksInDatabase(board);
    expect(expected).toHaveLength(PLAYERS);
    // The ranks come from Redis: its set holds the board in PostgreSQL's order, and no instance fell back.
    expect(await ranksInRedis(board)).toEqual(expected.map((row) => row.personaUid));
    expect(await everyInstanceInRedis()).toBe(true);
    expect(await fallbacks()).toBe(0);
    for (const seen of await ranksOfEveryInstance(board)) {
      expect(seen.page).toEqual(expected);
      expect(seen.mine).toEqual(
        players.slice(0, 5).map((player) => {
          const { personaUid, rank } = expected.find((row) => row.personaUid === player.persona)!;
          return { personaUid, rank };
        }),
      );
    }

    // Redis dies while the writes go on: no write fails, and the ranks follow PostgreSQL all the same.
    const storm = scoreStorm(board, 600);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await cluster.redis!.kill();
    try {
      expect(tally(await storm)).toEqual({ 200: 600 });
      expected = await ranksInDatabase(board);
      const total = (
        await cluster.db.query(`SELECT sum(score)::int AS total FROM leaderboard_records WHERE "leaderboardUid" = $1`, [board])
      ).rows[0].total as number;
      for (const seen of await ranksOfEveryInstance(board)) {
        expect(seen.page).toEqual(expected);
        expect(seen.page.reduce((sum, row) => sum + row.score, 0)).toBe(total);
      }
      // Without Redis the instances answered from their in-process trees.
      expect(await fallbacks()).toBeGreaterThan(0);
    } finally {
      await cluster.redis!.restart();
    }

    // Redis is back with nothing in it: the sets are rebuilt from PostgreSQL, every instance answers
    // from them again (no read falls back), and writes go on through them.
    await waitUntil(async () => (await everyInstanceInRedis()) && (await ranksInRedis(board)).length === PLAYERS, 30_000);
    const before = await fallbacks();
    expect(tally(await scoreStorm(board, 300))).toEqual({ 200: 300 });
    expected = await ranksInDatabase(board);
    expect(await ranksInRedis(board)).toEqual(expected.map((row) => row.personaUid));
    for (const seen of await ranksOfEveryInstance(board)) expect(seen.page).toEqual(expected);
    expect(await fallbacks()).toBe(before);
    console.log('ranks across three instances', JSON.stringify({ writes: 1500, records: expected.length, agreed: true }));
  }, 240_000);

  it('pays every prize exactly once when an instance is SIGKILLed during the payout', async () => {
    const gold = (await call(next(), 'POST', '/items', admin, { name: 'Prize gold' })).body.uid as string;
    const startAt = new Date(Date.now() + 1000);
    const board = (
      await call(next(), 'POST', '/leaderboards', admin, {
        name: 'Killed mid-payout',
        startAt: startAt.toISOString(),
        duration: 6,
        rewards: [
          { rankFrom: 1, rankTo: 1, items: [{ itemUid: gold, quantity: 1000 }] },
          { rankFrom: 2, rankTo: PLAYERS, items: [{ itemUid: gold, quantity: 10 }] },
        ],
      })
    ).body.uid as string;
    await waitUntil(async () => Date.now() > startAt.getTime() + 100, 5_000);
    const scores = await Promise.all(
      players.map((player, index) => call(next(), 'POST', `/leaderboards/${board}/records`, player.token, { score: 100 + index })),
    );
    expect(tally(scores)).toEqual({ 200: PLAYERS });

    // The moment an instance has claimed prizes and is paying them, every instance dies without a goodbye
    // (so the one paying surely does); then they come back.
    const claimed = async () =>
      (
        await cluster.db.query(
          `SELECT count(*) FILTER (WHERE p.status = 'PAID')::int AS paid, count(*) FILTER (WHERE p."leasedUntil" IS NOT NULL)::int AS claimed
             FROM leaderboard_payouts p JOIN leaderboard_periods l ON l.uid = p."periodUid" WHERE l."leaderboardUid" = $1`,
          [board],
        )
      ).rows[0] as { paid: number; claimed: number };
    const deadline = Date.now() + 60_000;
    let atKill = await claimed();
    while (atKill.claimed === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      atKill = await claimed();
    }
    expect(atKill.claimed).toBeGreaterThan(0);
    for (const instance of cluster.instances) instance.process.kill('SIGKILL');
    await Promise.all(cluster.instances.map((instance) => instance.exited));
    atKill = await claimed();
    await Promise.all(cluster.instances.map((instance) => cluster.startInstance(instance.index)));

    // Prizes claimed by the dead wait for their lease (60 s), then are paid again by the same key: once.
    const paidIn = await waitUntil(async () => {
      const { rows } = await cluster.db.query(
        `SELECT count(*) FILTER (WHERE p.status = 'PAID')::int AS paid, count(*)::int AS total
           FROM leaderboard_payouts p JOIN leaderboard_periods l ON l.uid = p."periodUid" WHERE l."leaderboardUid" = $1`,
        [board],
      );
      return rows[0].total === PLAYERS && rows[0].paid === PLAYERS;
    }, 150_000);

    const { rows: held } = await cluster.db.query(
      `SELECT r."personaUid", r.rank, coalesce(i.quantity, 0) AS quantity FROM leaderboard_records r
         LEFT JOIN inventory_items i ON i."personaUid" = r."personaUid" AND i."itemUid" = $2 WHERE r."leaderboardUid" = $1`,
      [board, gold],
    );
    expect(held).toHaveLength(PLAYERS);
    for (const row of held) expect(row.quantity).toBe(row.rank === 1 ? 1000 : 10);
    const { rows: awards } = await cluster.db.query(
      `SELECT "idempotencyKey", count(*)::int AS count FROM transactions WHERE "idempotencyKey" LIKE 'leaderboard-prize:%' AND type = 'AWARD'
         AND "personaOneUid" = ANY($1) GROUP BY 1 HAVING count(*) > 1`,
      [players.map((player) => player.persona)],
    );
    expect(awards).toEqual([]);
    expect(await economyViolations(cluster.db)).toEqual([]);
    console.log(
      'prizes with an instance killed mid-payout',
      JSON.stringify({ prizes: PLAYERS, paidWhenKilled: atKill.paid, allPaidOnceWithinMs: paidIn }),
    );
  }, 240_000);
});
