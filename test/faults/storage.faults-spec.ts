import { execFileSync } from 'node:child_process';
import { decodeJwt } from 'jose';
import { call, Cluster, type Reply, tally } from './cluster.js';

/**
 * Cloud save through a crash (issue 29): players write batches of 100 objects at once, through two
 * instances, and one instance is SIGKILLed while its batches are in flight. Every batch writes the same
 * batch number into all 100 objects of its player, so that a batch half-applied would show as objects
 * of two numbers, or fewer than 100; each player's usage row must add up to their objects.
 */
const INSTANCES = 2;
const PLAYERS = 12;
const KEYS = 100;

interface Player {
  token: string;
  uid: string;
}

describe('cloud save through a crash', () => {
  let cluster: Cluster;
  const players: Player[] = [];

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(INSTANCES);
    for (let index = 0; index < PLAYERS; index++) {
      const token = await cluster.signIn(`saver-${index}`, cluster.instances[index % INSTANCES]);
      players.push({ token, uid: decodeJwt(token).sub! });
    }
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  /** Batch `batch` of a player: all their objects, each holding the batch's number (about 50 KB in all). */
  const writeBatch = (base: string, player: Player, batch: number) =>
    call(base, 'PUT', '/storage', player.token, {
      objects: Array.from({ length: KEYS }, (_, index) => ({
        collection: 'slots',
        key: `slot-${index}`,
        value: { batch, pad: 'x'.repeat(480) },
      })),
    });

  it('leaves every batch all or nothing when an instance is SIGKILLed mid-batch', async () => {
    const victim = cluster.instances[1];
    // Half the players start with their objects (a crash then hits replacements), half without (creations).
    for (const player of players.slice(0, PLAYERS / 2)) expect((await writeBatch(cluster.instances[0].url, player, 0)).status).toBe(200);

    const acked = new Map<string, number>();
    const attempted = new Map<string, Set<number>>();
    const replies: Array<Reply & { instance: number }> = [];
    // The kill comes once the victim has acknowledged some batches (so it is killed while others are in
    // flight, whatever the machine's speed), and the players go on for a while after it.
    let killedAt: number | undefined;
    let victimAcks = 0;
    const kill = () => {
      if (killedAt !== undefined) return;
      killedAt = Date.now();
      victim.process.kill('SIGKILL');
    };
    const atTheLatest = setTimeout(kill, 30_000);
    const going = () => killedAt === undefined || Date.now() < killedAt + 2000;
    await Promise.all(
      players.map(async (player, index) => {
        attempted.set(player.uid, new Set(index < PLAYERS / 2 ? [0] : []));
        if (index < PLAYERS / 2) acked.set(player.uid, 0);
        // Two of every three batches go to the instance about to die.
        for (let batch = 1; going(); batch++) {
          const instance = cluster.instances[batch % 3 === 0 ? 0 : 1];
          attempted.get(player.uid)!.add(batch);
          const reply = await writeBatch(instance.url, player, batch);
          replies.push({ ...reply, instance: instance.index });
          if (reply.status === 200) acked.set(player.uid, batch);
          if (reply.status === 200 && instance === victim && ++victimAcks >= PLAYERS) kill();
        }
      }),
    );
    clearTimeout(atTheLatest);
    await victim.exited;

    const onVictim = replies.filter((reply) => reply.instance === victim.index);
    const survivors = replies.filter((reply) => reply.instance !== victim.index);
    console.log('storage batches through a crash', JSON.stringify({ victim: tally(onVictim), survivors: tally(survivors) }));
    // It served batches, then went away mid-load.
    expect(onVictim.some((reply) => reply.status === 200)).toBe(true);
    expect(onVictim.some((reply) => reply.status === 0)).toBe(true);
    expect(survivors.every((reply) => reply.status === 200)).toBe(true);

    const { rows } = await cluster.db.query<{
      ownerUid: string;
      objects: number;
      batches: number[];
      kept: number | null;
      keptBytes: string | null;
      bytes: string;
    }>(
      `SELECT u.uid AS "ownerUid", count(o.key)::int AS objects,
              coalesce(array_agg(DISTINCT (o.value ->> 'batch')::int) FILTER (WHERE o.key IS NOT NULL), '{}') AS batches,
              s.objects AS kept, s.bytes::text AS "keptBytes", coalesce(sum(o.size), 0)::text AS bytes
       FROM users u LEFT JOIN storage_objects o ON o."ownerUid" = u.uid LEFT JOIN storage_usage s ON s."ownerUid" = u.uid
       WHERE u.uid = ANY($1::uuid[]) GROUP BY u.uid, s.objects, s.bytes`,
      [players.map((player) => player.uid)],
    );
    expect(rows).toHaveLength(PLAYERS);
    for (const row of rows) {
      // All of one batch, or nothing.
      expect({ owner: row.ownerUid, objects: row.objects, batches: row.batches.length }).toEqual({
        owner: row.ownerUid,
        objects: row.objects === 0 ? 0 : KEYS,
        batches: row.objects === 0 ? 0 : 1,
      });
      // The usage the quotas are checked against is what the objects add up to.
      expect({ objects: row.kept ?? 0, bytes: row.keptBytes ?? '0' }).toEqual({ objects: row.objects, bytes: row.bytes });
      // The batch stored is one that was sent, and none older than the last acknowledged.
      const [stored] = row.batches;
      if (row.objects > 0) expect(attempted.get(row.ownerUid)!.has(stored)).toBe(true);
      if (acked.has(row.ownerUid)) expect(stored).toBeGreaterThanOrEqual(acked.get(row.ownerUid)!);
    }

    // Restarted, the instance serves the same storage.
    const restarted = await cluster.startInstance(victim.index);
    expect((await writeBatch(restarted.url, players[PLAYERS - 1], 1_000)).status).toBe(200);
    const read = await call(restarted.url, 'POST', '/storage/read', players[PLAYERS - 1].token, {
      objects: [{ collection: 'slots', key: 'slot-99' }],
    });
    expect(read.body.objects[0].value.batch).toBe(1_000);
  }, 120_000);
});
