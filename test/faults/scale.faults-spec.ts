import { execFileSync } from 'node:child_process';
import { decodeJwt } from 'jose';
import { RealtimeClient } from '../support/realtime-client.js';
import { call, Cluster, type Reply, tally, waitUntil } from './cluster.js';
import { economyViolations } from './invariants.js';

/**
 * Three instances behind a transaction-pooling PgBouncer (Debian's), with Redis (Debian's) for the
 * rate-limit counters: what the pooler and Redis change, and what survives losing each of them.
 */
const INSTANCES = 3;
const PLAYERS = 60;
/** Requests a signed-in user may make per minute: low enough to reach, high enough for the load below. */
const LIMIT = 100;

describe('PgBouncer and Redis', () => {
  let cluster: Cluster;
  let admin: string;
  let serial = 0;
  const players: Array<{ token: string; uid: string; persona: string }> = [];
  let gold: string;

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(
      INSTANCES,
      {
        RATE_LIMIT_ENABLED: 'true',
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_IP_PER_MINUTE: '1000000',
        RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
      },
      { pgbouncer: true, redis: true },
    );
    admin = await cluster.signIn('admin');
    gold = (await call(cluster.instances[0].url, 'POST', '/items', admin, { name: 'Gold' })).body.uid;
    for (let index = 0; index < PLAYERS; index++) {
      const token = await cluster.signIn(`player-${index}`, cluster.instances[index % INSTANCES]);
      const personas = await call(cluster.instances[0].url, 'GET', '/personas', token);
      players.push({ token, uid: decodeJwt(token).sub!, persona: personas.body[0].uid });
    }
    // Each player's persona gets 1000 gold, in awards of 20 personas (the admin has a budget too).
    for (let start = 0; start < PLAYERS; start += 20) {
      await Promise.all(
        players.slice(start, start + 20).map((player, index) =>
          call(cluster.instances[index % INSTANCES].url, 'POST', '/inventories/transaction', admin, {
            type: 'AWARD',
            personaOneUid: player.persona,
            personaOneInventoryItems: [{ itemUid: gold, quantity: 1000 }],
          }).then((reply) => expect(reply.status).toBe(200)),
        ),
      );
    }
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  /** A read or a gift by player `index` on instance `instance`: the mixed load of these tests. */
  const mixed = (index: number, instance: number): Promise<Reply> => {
    const player = players[index % PLAYERS];
    const base = cluster.instances[instance % INSTANCES].url;
    if (index % 3 !== 0) return call(base, 'GET', index % 2 ? '/personas' : '/items?limit=10', player.token);
    return call(base, 'POST', '/inventories/transaction', player.token, {
      personaOneUid: player.persona,
      personaTwoUid: players[(index + 1) % PLAYERS].persona,
      personaOneInventoryItems: [{ itemUid: gold, quantity: 1 }],
    });
  };

  /** `total` requests of the mixed load, `concurrency` at a time, spread over the first `instances`. */
  async function load(total: number, concurrency: number, instances: number): Promise<{ replies: Reply[]; perSecond: number }> {
    const replies: Reply[] = [];
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const index = next++;
          replies.push(await mixed(serial++, index % instances));
        }
      }),
    );
    return { replies, perSecond: Math.round(total / ((Date.now() - started) / 1000)) };
  }

  /** One user's `count` requests spread over the three instances, ten at a time. */
  async function spend(count: number): Promise<Record<string, number>> {
    const token = await cluster.signIn(`limited-${++serial}`);
    const replies: Reply[] = [];
    for (let start = 0; start < count; start += 10) {
      replies.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(10, count - start) }, (_, offset) =>
            call(cluster.instances[(start + offset) % INSTANCES].url, 'GET', '/personas', token),
          ),
        )),
      );
    }
    return tally(replies);
  }

  const readiness = async () =>
    Promise.all(cluster.instances.map(async (instance) => (await call(instance.url, 'GET', '/health/ready')).body));

  it('serves the mixed load through PgBouncer on one, two and three instances, and events still cross instances', async () => {
    const perSecond: Record<number, number> = {};
    for (const instances of [1, 2, INSTANCES]) {
      const { replies, perSecond: rate } = await load(600, 16, instances);
      expect(tally(replies)).toEqual({ 200: 600 });
      perSecond[instances] = rate;
    }
    // LISTEN goes direct (DATABASE_DIRECT_URL): a gift on instance 0 reaches a socket on instance 2.
    const [giver, receiver] = [players[0], players[1]];
    const socket = await RealtimeClient.connect(cluster.instances[2].url, { token: receiver.token });
    try {
      const reply = await call(cluster.instances[0].url, 'POST', '/inventories/transaction', giver.token, {
        personaOneUid: giver.persona,
        personaTwoUid: receiver.persona,
        personaOneInventoryItems: [{ itemUid: gold, quantity: 1 }],
      });
      expect(reply.status).toBe(200);
      await socket.waitFor((frame) => frame.type === 'transaction.updated' && (frame.data as { uid: string }).uid === reply.body.uid);
    } finally {
      await socket.close();
    }
    expect(await economyViolations(cluster.db)).toEqual([]);
    console.log('mixed load through PgBouncer', JSON.stringify({ requestsPerSecond: perSecond }));
  }, 120_000);

  it("holds one user's limit across the three instances with Redis; without Redis counts per instance, delivers every event once and refuses revoked tokens; holds the limit again after", async () => {
    expect(await readiness()).toEqual(Array(INSTANCES).fill({ status: 'ok', redis: 'up' }));
    const shared = await spend(3 * LIMIT);
    expect(shared).toEqual({ 200: LIMIT, 429: 2 * LIMIT });

    // Receivers hold sockets on every instance; what they are given while Redis is away must reach them.
    const receivers = players.slice(PLAYERS - 6);
    const sockets = await Promise.all(
      receivers.map((receiver, index) => RealtimeClient.connect(cluster.instances[index % INSTANCES].url, { token: receiver.token })),
    );
    const acknowledged = new Map<string, string[]>(receivers.map((receiver) => [receiver.uid, []]));
    await cluster.redis!.kill();
    try {
      await waitUntil(async () => (await readiness()).every((ready) => ready.status === 'degraded'), 15_000);
      // Trades and reads go on without Redis: no 5xx; gifts to the receivers, on every instance.
      const gifts = await Promise.all(
        Array.from({ length: 30 }, async (_, index) => {
          const [giver, receiver] = [players[index], receivers[index % receivers.length]];
          const reply = await call(cluster.instances[(index + 1) % INSTANCES].url, 'POST', '/inventories/transaction', giver.token, {
            personaOneUid: giver.persona,
            personaTwoUid: receiver.persona,
            personaOneInventoryItems: [{ itemUid: gold, quantity: 1 }],
          });
          if (reply.status === 200) acknowledged.get(receiver.uid)!.push(reply.body.uid as string);
          return reply;
        }),
      );
      const during = await load(300, 12, INSTANCES);
      expect(tally([...gifts, ...during.replies])).toEqual({ 200: 330 });
      // A sign-out everywhere on one instance is refused on the others at once, Redis or not.
      const leaver = await cluster.signIn(`leaver-${++serial}`);
      expect((await call(cluster.instances[0].url, 'POST', '/auth/logout-all', leaver)).status).toBe(204);
      for (const instance of cluster.instances) expect((await call(instance.url, 'GET', '/personas', leaver)).status).toBe(401);
      for (const [index, receiver] of receivers.entries()) {
        const expected = acknowledged.get(receiver.uid)!;
        const socket = sockets[index];
        await waitUntil(
          async () =>
            expected.every((uid) =>
              socket.events.some((event) => event.type === 'transaction.updated' && (event.data as { uid: string }).uid === uid),
            ),
          10_000,
        );
        // Other players' gifts (the load) reach them too: each transaction once, these among them.
        const delivered = socket.events
          .filter((event) => event.type === 'transaction.updated')
          .map((event) => (event.data as { uid: string }).uid);
        expect(new Set(delivered).size).toBe(delivered.length);
        expect(delivered).toEqual(expect.arrayContaining(expected));
      }
      const alone = await spend(3 * LIMIT);
      expect(alone).toEqual({ 200: 3 * LIMIT });
      console.log(
        'rate limit across three instances',
        JSON.stringify({ limit: LIMIT, withRedis: shared, withoutRedis: alone, overshootWithoutRedis: (alone[200] ?? 0) / LIMIT }),
      );
    } finally {
      await cluster.redis!.restart();
      await Promise.all(sockets.map((socket) => socket.close()));
    }
    const recoveredIn = await waitUntil(async () => (await readiness()).every((ready) => ready.status === 'ok'), 15_000);
    expect(await spend(3 * LIMIT)).toEqual({ 200: LIMIT, 429: 2 * LIMIT });
    console.log('Redis restarted', JSON.stringify({ sharedAgainWithinMs: recoveredIn }));
  }, 120_000);

  it('answers 503 at most while PgBouncer is down, and recovers without restarting an instance', async () => {
    const replies: Reply[] = [];
    let running = true;
    const traffic = (async () => {
      while (running) replies.push(...(await Promise.all(Array.from({ length: 6 }, (_, index) => mixed(serial++, index)))));
    })();
    let recoveredIn: number;
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await cluster.pgbouncer!.stop();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await cluster.pgbouncer!.restart();
      recoveredIn = await waitUntil(async () => (await mixed(serial++, 0)).status === 200, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      // A failed recovery must not leave the traffic running after the test.
      running = false;
      await traffic;
    }
    const after = await load(60, 6, INSTANCES);
    expect(tally(after.replies)).toEqual({ 200: 60 });
    const statuses = Object.keys(tally(replies));
    expect(statuses.filter((status) => status !== '200' && status !== '503')).toEqual([]);
    expect(await economyViolations(cluster.db)).toEqual([]);
    console.log('PgBouncer restarted', JSON.stringify({ during: tally(replies), recoveredInMs: recoveredIn }));
  }, 120_000);
});
