import { execFileSync } from 'node:child_process';
import { decodeJwt } from 'jose';
import { RealtimeClient } from '../support/realtime-client.js';
import { call, Cluster, tally, waitUntil } from './cluster.js';
import { sessionViolations } from './invariants.js';

/**
 * The launch-day matchmaking rules with three instances over one PostgreSQL, each running the
 * matchmaker (every 100 ms) and the lobby sweep: what one instance decides, the others must respect.
 */
const INSTANCES = 3;
// Long enough that the backfill scenario's members stay seated while it runs, short enough to wait out.
const MEMBER_TIMEOUT_SECONDS = 5;

describe('matchmaking across instances', () => {
  let cluster: Cluster;
  let admin: string;
  let serial = 0;
  /** The instance a request goes to, in turn, as a load balancer would spread them. */
  const on = (index: number) => cluster.instances[index % INSTANCES].url;

  const players = async (count: number, label: string) =>
    Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const token = await cluster.signIn(`${label}-${++serial}`, cluster.instances[index % INSTANCES]);
        return { token, uid: decodeJwt(token).sub! };
      }),
    );

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(INSTANCES, { MATCHMAKER_INTERVAL: '100', SESSION_MEMBER_TIMEOUT: String(MEMBER_TIMEOUT_SECONDS) });
    admin = await cluster.signIn('admin');
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  const queued = async (uid: string) =>
    (
      await cluster.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM tickets WHERE users @> ARRAY[$1]::uuid[] AND status IN ('SEARCHING', 'INITIALIZING')`,
        [uid],
      )
    ).rows[0].n;

  it('gives each player one queue place, parties by consent, and seats nobody twice', async () => {
    // Each player sends two tickets at once to two instances; the shape asks for a party of two, so
    // that nothing is matched before the parties below are complete.
    const racers = await players(20, 'racer');
    const races = await Promise.all(
      racers.map((player, index) =>
        Promise.all([
          call(on(index), 'POST', '/tickets', player.token, { numTeams: 2, teamSize: 3, status: 'INITIALIZING' }),
          call(on(index + 1), 'POST', '/tickets', player.token, { numTeams: 2, teamSize: 3, status: 'INITIALIZING' }),
        ]),
      ),
    );
    for (const [index, pair] of races.entries()) {
      expect(pair.map((reply) => reply.status).sort()).toEqual([201, 409]);
      expect(await queued(racers[index].uid)).toBe(1);
    }
    const abandoned = races.flat().filter((reply) => reply.status === 201);
    await Promise.all(abandoned.map((reply, index) => call(on(index), 'DELETE', `/tickets/${reply.body.uid}`, admin)));

    // Parties of two queued on one instance, accepted on another, matched by whichever instance's pass.
    const [hosts, friends] = [await players(12, 'host'), await players(12, 'friend')];
    const parties = await Promise.all(
      hosts.map((host, index) =>
        call(on(index), 'POST', '/tickets', host.token, { numTeams: 2, teamSize: 2, users: [host.uid, friends[index].uid] }),
      ),
    );
    expect(tally(parties)).toEqual({ 201: 12 });
    expect(parties.every((reply) => reply.body.status === 'INITIALIZING')).toBe(true);
    // A friend told over a socket on a third instance.
    const socket = await RealtimeClient.connect(on(2), { token: friends[0].token });
    try {
      const accepts = await Promise.all(
        parties.map((reply, index) => call(on(index + 1), 'POST', `/tickets/${reply.body.uid}/accept`, friends[index].token)),
      );
      expect(tally(accepts)).toEqual({ 200: 12 });
      const matchedIn = await waitUntil(async () => {
        const { rows } = await cluster.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM tickets WHERE uid = ANY($1::uuid[]) AND status = 'MATCH_FOUND'`,
          [parties.map((reply) => reply.body.uid as string)],
        );
        return rows[0].n === 12;
      }, 15_000);
      await socket.waitFor((frame) => frame.type === 'ticket.updated' && frame.data.status === 'MATCH_FOUND');
      console.log(
        'parties matched across instances',
        JSON.stringify({ races: tally(races.flat()), accepts: tally(accepts), matchedInMs: matchedIn }),
      );
    } finally {
      await socket.close();
    }
    expect(await sessionViolations(cluster.db)).toEqual([]);
  }, 120_000);

  it('expires tickets once, whichever instance sweeps', async () => {
    const lapsing = await players(15, 'lapsing');
    const expiresAt = new Date(Date.now() + 1000).toISOString();
    const created = await Promise.all(
      lapsing.map((player, index) => call(on(index), 'POST', '/tickets', player.token, { numTeams: 5, teamSize: 4, expiresAt })),
    );
    expect(tally(created)).toEqual({ 201: 15 });
    const uids = created.map((reply) => reply.body.uid as string);
    await waitUntil(async () => {
      const { rows } = await cluster.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM tickets WHERE uid = ANY($1::uuid[]) AND status = 'INVALID'`,
        [uids],
      );
      return rows[0].n === uids.length;
    }, 10_000);
    const { rows } = await cluster.db.query<{ reason: string; version: number }>(
      `SELECT reason, version FROM tickets WHERE uid = ANY($1::uuid[])`,
      [uids],
    );
    expect(rows.every((row) => row.reason === 'EXPIRED' && row.version === 1)).toBe(true);
  }, 60_000);

  it('fills open seats by backfill and by joins on three instances without overfilling one', async () => {
    const owners = await players(10, 'backfill-owner');
    const [joiners, seekers] = [await players(10, 'joiner'), await players(10, 'seeker')];
    const sessions = await Promise.all(
      owners.map((owner, index) => call(on(index), 'POST', '/sessions', owner.token, { numTeams: 1, teamSize: 2 })),
    );
    expect(tally(sessions)).toEqual({ 201: 10 });
    const sessionUids = sessions.map((reply) => reply.body.uid as string);
    // Seekers who will not play with each other (each wants their own "table"), so that only backfill seats them.
    const tickets = await Promise.all(
      seekers.map((seeker, index) =>
        call(on(index + 2), 'POST', '/tickets', seeker.token, {
          numTeams: 1,
          teamSize: 2,
          statistics: [{ name: 'table', value: index }],
          criteria: [{ name: 'table', minValue: index, maxValue: index }],
        }),
      ),
    );
    expect(tally(tickets)).toEqual({ 201: 10 });
    // The owners open their last seat to backfill while players join for it, a little later or not.
    const joins = await Promise.all(
      owners.map(async (owner, index) => {
        expect((await call(on(index), 'PUT', `/sessions/${sessionUids[index]}`, owner.token, { backfill: true })).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, (index % 5) * 40));
        return call(on(index + 1), 'GET', `/sessions/${sessionUids[index]}/join`, joiners[index].token);
      }),
    );
    const joined = joins.filter((reply) => reply.status === 200).length;
    expect(joined + joins.filter((reply) => reply.status === 409).length).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { rows } = await cluster.db.query<{ members: number }>(
      `SELECT cardinality(users) AS members FROM sessions WHERE uid = ANY($1::uuid[])`,
      [sessionUids],
    );
    expect(rows.map((row) => row.members)).toEqual(Array(10).fill(2));
    const placed = await cluster.db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM tickets WHERE uid = ANY($1::uuid[]) GROUP BY status ORDER BY status`,
      [tickets.map((reply) => reply.body.uid as string)],
    );
    // A seat a join took leaves its seeker waiting; every other seat went to a seeker.
    expect(placed.rows).toEqual([
      ...(joined < 10 ? [{ status: 'MATCH_FOUND', n: 10 - joined }] : []),
      ...(joined > 0 ? [{ status: 'SEARCHING', n: joined }] : []),
    ]);
    // Earlier scenarios' silent members have been swept out of their sessions by now, rightly.
    expect(await sessionViolations(cluster.db, sessionUids)).toEqual([]);
    console.log('backfill racing joins', JSON.stringify({ joins: tally(joins), backfilled: 10 - joined }));
  }, 60_000);

  it('removes silent lobby members once, keeps those who show presence on any instance', async () => {
    const owners = await players(9, 'lobby-owner');
    const [talkers, quiet] = [await players(9, 'talker'), await players(9, 'quiet')];
    const lobbies = await Promise.all(
      owners.map((owner, index) => call(on(index), 'POST', '/sessions', owner.token, { numTeams: 1, teamSize: 4, status: 'IDLE' })),
    );
    const uids = lobbies.map((reply) => reply.body.uid as string);
    for (const [index, uid] of uids.entries()) {
      expect((await call(on(index + 1), 'GET', `/sessions/${uid}/join`, talkers[index].token)).status).toBe(200);
      expect((await call(on(index + 2), 'GET', `/sessions/${uid}/join`, quiet[index].token)).status).toBe(200);
    }
    // Talkers beat on every instance in turn; the owner of the first lobby holds a socket instead.
    const socket = await RealtimeClient.connect(on(1), { token: owners[0].token });
    const until = Date.now() + (MEMBER_TIMEOUT_SECONDS + 2) * 1000;
    let beat = 0;
    try {
      while (Date.now() < until) {
        const beats = await Promise.all(
          uids.map((uid, index) => call(on(beat + index), 'POST', `/sessions/${uid}/heartbeat`, talkers[index].token)),
        );
        expect(tally(beats)).toEqual({ 204: 9 });
        beat += 1;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      await socket.close();
    }
    const { rows } = await cluster.db.query<{ uid: string; users: string[]; hostUid: string; version: number }>(
      `SELECT uid, users, "hostUid", version FROM sessions WHERE uid = ANY($1::uuid[])`,
      [uids],
    );
    for (const row of rows) {
      const index = uids.indexOf(row.uid);
      if (index === 0) {
        expect(row.users).toEqual([owners[0].uid, talkers[0].uid]);
        expect(row.version).toBe(3);
      } else {
        // Created (0), two joins (2), then the owner and the quiet member removed, by one sweep or two
        // (they fell silent at different moments): never a removal written twice.
        expect(row).toMatchObject({ users: [talkers[index].uid], hostUid: talkers[index].uid });
        expect([3, 4]).toContain(row.version);
      }
    }
  }, 60_000);
});
