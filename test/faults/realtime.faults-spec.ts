import { execFileSync } from 'node:child_process';
import { decodeJwt } from 'jose';
import { RealtimeClient } from '../support/realtime-client.js';
import { call, Cluster, type Reply, tally, waitUntil } from './cluster.js';

/**
 * No event lost under overload (issue 47): the database pool of the instance that holds the players'
 * sockets is saturated while their events are committed through another instance, long enough for its
 * inbox reads to fail on the pool's timeout. Once the pool recovers, every socket must have received
 * every event committed for its player, by id, each once, in order: no player gets another event to
 * wake their inbox again, and without Redis no poll would find them either (LISTEN/NOTIFY only).
 */
const PLAYERS = 20;
/** TypeORM's pool on each instance (src/database/data-source-options.ts): the requests that fill it. */
const POOL = 10;

describe('realtime under a saturated database pool', () => {
  let cluster: Cluster;
  const players: Array<{ token: string; uid: string }> = [];

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(2);
    for (let index = 0; index < PLAYERS; index++) {
      const token = await cluster.signIn(`quiet-${index}`, cluster.instances[index % 2]);
      players.push({ token, uid: decodeJwt(token).sub! });
    }
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  /** One storage write by each of `who` through `instance`: one `storage.updated` event to each. */
  const writeEach = async (instance: number, wave: string, who = players) => {
    const replies = await Promise.all(
      who.map((player) =>
        call(cluster.instances[instance].url, 'PUT', '/storage', player.token, {
          objects: [{ collection: 'saves', key: wave, value: { wave } }],
        }),
      ),
    );
    expect(tally(replies)).toEqual({ 200: who.length });
  };

  it('delivers every committed event to its socket once the pool recovers, each once and in order', async () => {
    const [holder, writer] = cluster.instances;
    const sockets = await Promise.all(players.map((player) => RealtimeClient.connect(holder.url, { token: player.token })));
    const starts = sockets.map((socket) => socket.frames[0].id);
    await writeEach(writer.index, 'before');
    await Promise.all(sockets.map((socket) => socket.waitForEvents(1)));

    // A transaction of the test's own locks the achievements table; every request for the catalogue
    // then holds one of the holder's pool connections, waiting for it. More than the pool: it is full.
    const lock = await cluster.db.connect();
    let blocked: Promise<Reply[]> | undefined;
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE achievements IN ACCESS EXCLUSIVE MODE');
      blocked = Promise.all(Array.from({ length: POOL + 4 }, () => call(holder.url, 'GET', '/achievements', players[0].token)));
      await waitUntil(async () => {
        const { rows } = await cluster.db.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_locks WHERE relation = 'achievements'::regclass AND NOT granted`,
        );
        return rows[0].waiting >= POOL;
      }, 30_000);

      // Events committed while the holder cannot read: its read waits for a connection until the pool's
      // timeout. For the first half of the players they are the last: nothing wakes their inbox again.
      await writeEach(writer.index, 'during');
      await waitUntil(async () => /reading the inboxes of \d+ users failed/.test(holder.output), 30_000);
      // The other half get more while the holder waits to try again, and after.
      await writeEach(writer.index, 'retrying', players.slice(PLAYERS / 2));
    } finally {
      await lock.query('ROLLBACK');
      lock.release();
    }
    console.log('requests held by the lock', JSON.stringify(tally(await blocked)));
    await writeEach(writer.index, 'after', players.slice(PLAYERS / 2));

    for (const [index, player] of players.entries()) {
      const [xid, id] = starts[index].split('-');
      // Not `AS id`: ORDER BY would then sort by the text, not by the columns.
      const { rows } = await cluster.db.query<{ eventId: string }>(
        `SELECT xid::text || '-' || id::text AS "eventId" FROM notifications WHERE "userUid" = $1 AND (xid, id) > ($2::text::xid8, $3::bigint) ORDER BY xid, id`,
        [player.uid, xid, id],
      );
      const expected = rows.map((row) => row.eventId);
      expect(expected).toHaveLength(index < PLAYERS / 2 ? 2 : 4);
      await sockets[index].waitForEvents(expected.length, 30_000).catch(() => undefined);
      expect({ player: index, received: sockets[index].events.map((event) => event.id) }).toEqual({ player: index, received: expected });
    }
    await Promise.all(sockets.map((socket) => socket.close()));

    const metrics = String((await call(holder.url, 'GET', '/metrics')).body);
    const figure = (name: string) => Number(new RegExp(`^${name} (\\d+(?:\\.\\d+)?)$`, 'm').exec(metrics)?.[1]);
    const [reads, usersRead, failed] = [
      'realtime_inbox_read_users_count',
      'realtime_inbox_read_users_sum',
      'realtime_inbox_read_failures_total',
    ].map(figure);
    console.log('holder inbox reads', JSON.stringify({ reads, usersRead, failed }));
    expect(failed).toBeGreaterThanOrEqual(1);
    // The players woken together were read together: fewer reads than users read.
    expect(usersRead).toBeGreaterThan(reads);
  }, 180_000);
});
