import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { call, Cluster, type Reply, tally, waitUntil } from './cluster.js';

/**
 * Two instances whose catalog reads go to a streaming replica of their PostgreSQL (made with the
 * low-level backup API from the same binaries): what the replica serves, and what clients see when it
 * falls behind or stops.
 */
const MAX_LAG_SECONDS = 2;

describe('read replicas', () => {
  let cluster: Cluster;
  let admin: string;
  let player: string;
  let item: string;
  let text: string;
  let persona: string;

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(2, { REPLICA_MAX_LAG: String(MAX_LAG_SECONDS) }, { replica: true });
    admin = await cluster.signIn('admin');
    player = await cluster.signIn('replica-player');
    const base = cluster.instances[0].url;
    item = (await call(base, 'POST', '/items', admin, { name: 'Sword' })).body.uid;
    text = (await call(base, 'POST', '/assets/text', admin, { name: 'Banner', text: { default: 'Hello', fr: 'Bonjour' } })).body.uid;
    expect((await call(base, 'POST', '/achievements', admin, { name: 'First blood' })).status).toBe(201);
    persona = (await call(base, 'GET', '/personas', player)).body[0].uid;
    const skill = `/personas/${persona}/archetypes/${randomUUID()}/skills/${randomUUID()}/progress`;
    expect((await call(base, 'POST', skill, player, { value: 5 })).status).toBeLessThan(300);
    for (const instance of cluster.instances) await waitUntil(async () => (await metric(instance.url, 'replica_up')) === 1, 20_000);
    // Instance 0 reads the tables it just wrote from the primary until the replica has replayed those
    // writes (read-your-writes); the tests below start once every routed read can go to the replica.
    await waitUntil(async () => {
      const before = await replicaReads(base);
      for (let index = 0; index < 6; index++) await catalogRead(index, base);
      return (await replicaReads(base)) === before + 6;
    }, 20_000);
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  /** One of the catalog reads routed to replicas, in turn. */
  const catalogRead = (index: number, base: string): Promise<Reply> => {
    const paths = [
      '/items?limit=10',
      '/items/count',
      `/items/${item}`,
      `/assets/text/${text}/resolve?lang=fr`,
      '/achievements',
      `/personas/${persona}/skills`,
    ];
    return call(base, 'GET', paths[index % paths.length], player);
  };

  async function readMany(total: number, concurrency: number): Promise<Reply[]> {
    const replies: Reply[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const index = next++;
          replies.push(await catalogRead(index, cluster.instances[index % 2].url));
        }
      }),
    );
    return replies;
  }

  it('serves catalog reads from the replica, and whoever changes the catalog reads the change back at once', async () => {
    const before = await Promise.all(cluster.instances.map((instance) => replicaReads(instance.url)));
    const replies = await readMany(120, 6);
    expect(tally(replies)).toEqual({ 200: 120 });
    const after = await Promise.all(cluster.instances.map((instance) => replicaReads(instance.url)));
    const served = after[0] + after[1] - before[0] - before[1];
    console.log(`replica: ${served} of 120 catalog reads served by the replica`);
    expect(served).toBeGreaterThan(90);
    // The replica holds what the primary committed (streamed, not copied at start).
    const replica = new pg.Client({ connectionString: cluster.replica!.url });
    await replica.connect();
    try {
      expect((await replica.query('SELECT name FROM items WHERE uid = $1', [item])).rows).toEqual([{ name: 'Sword' }]);
    } finally {
      await replica.end();
    }

    // An update is read back from the instance that made it, every time: its reads of the table go to
    // the primary until the replica has replayed the change.
    const base = cluster.instances[0].url;
    for (let round = 0; round < 20; round++) {
      expect((await call(base, 'PUT', `/items/${item}`, admin, { name: `Sword ${round}` })).status).toBe(200);
      const read = await call(base, 'GET', `/items/${item}`, admin);
      expect(read.body.name).toBe(`Sword ${round}`);
    }
  });

  it('skips a replica that falls behind more than REPLICA_MAX_LAG, and uses it again once it has caught up', async () => {
    await cluster.replica!.pauseReplay(true);
    const other = cluster.instances[1].url;
    let created: string;
    let seenAfter: number;
    const statuses: number[] = [];
    try {
      created = (await call(cluster.instances[0].url, 'POST', '/items', admin, { name: 'Shield' })).body.uid;
      const started = Date.now();
      // The other instance may answer 404 while the replica is within the allowed lag, never later.
      seenAfter = await waitUntil(async () => {
        const reply = await call(other, 'GET', `/items/${created}`, player);
        statuses.push(reply.status);
        return reply.status === 200;
      }, 15_000);
      console.log(`replica: replay paused; the new item was read on the other instance after ${seenAfter} ms (${Date.now() - started} ms)`);
      expect(new Set(statuses)).toEqual(new Set(statuses.includes(404) ? [404, 200] : [200]));
      expect(seenAfter).toBeLessThan(MAX_LAG_SECONDS * 1000 + 2000);
      expect(await metric(other, 'replica_lag_seconds')).toBeGreaterThanOrEqual(MAX_LAG_SECONDS);
      // Meanwhile every catalog read answers, from the primary.
      const count = Number((await cluster.db.query<{ count: string }>('SELECT count(*) FROM items')).rows[0].count);
      expect((await call(other, 'GET', '/items/count', player)).body).toEqual({ count });
      expect(tally(await readMany(60, 6))).toEqual({ 200: 60 });
    } finally {
      await cluster.replica!.pauseReplay(false);
    }
    // Caught up: the replica serves again.
    const waited = await waitUntil(async () => {
      const before = await replicaReads(other);
      await readMany(12, 4);
      return (await replicaReads(other)) > before;
    }, 20_000);
    console.log(`replica: replay resumed; reads went to the replica again within ${waited} ms`);
  });

  it('keeps answering every catalog read while the replica is stopped, and uses it again once it is back', async () => {
    let stopped = false;
    const during: Reply[] = [];
    const reading = (async () => {
      for (let round = 0; !stopped; round++) during.push(...(await readMany(24, 6)));
    })();
    let whileDown: number;
    let back: number;
    let before: number;
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await cluster.replica!.stop();
      await waitUntil(async () => (await metric(cluster.instances[0].url, 'replica_up')) === 0, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      whileDown = during.length;
      await cluster.replica!.restart();
      back = await waitUntil(async () => (await metric(cluster.instances[1].url, 'replica_up')) === 1, 20_000);
      before = await replicaReads(cluster.instances[1].url);
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      // A failed step must not leave the reads running after the test.
      stopped = true;
      await reading;
    }
    console.log(
      `replica: stopped for 3 s under reads: ${JSON.stringify(tally(during))} (${whileDown} before the restart); used again ${back} ms after it was back`,
    );
    expect(tally(during)).toEqual({ 200: during.length });
    expect(await replicaReads(cluster.instances[1].url)).toBeGreaterThan(before);
  });
});

async function metricsText(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`)).text();
}

/** A metric's value (the first series of that name, whatever its labels). */
async function metric(base: string, name: string): Promise<number> {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(await metricsText(base));
  return match ? Number(match[1]) : NaN;
}

async function replicaReads(base: string): Promise<number> {
  const match = /^catalog_reads_total\{target="replica"\} (\d+)$/m.exec(await metricsText(base));
  return match ? Number(match[1]) : 0;
}
