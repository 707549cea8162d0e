import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { productionNodeFlags } from '../support/production-flags.js';
import { RealtimeClient, RefusedUpgrade } from '../support/realtime-client.js';
import { call, Cluster, type Reply, residentMemory, tally } from './cluster.js';

/**
 * One account doing the worst it can (issue 25) against three instances started as production starts
 * them (its heap flags), with Redis, while honest players play: every honest request is answered, none
 * with a 5xx or a 429, no answer passes the list budget, and no instance's memory passes its heap limit.
 */
const INSTANCES = 3;
const HONEST = 20;
const BYSTANDERS = 100;
const RUN_MS = 30_000;
const HEAP_LIMIT_MIB = Number(/--max-old-space-size=(\d+)/.exec(productionNodeFlags().join(' '))![1]);
const LIST_BUDGET = 4 * 1024 * 1024;
const INBOX_MAX = 200;

interface Player {
  token: string;
  uid: string;
  persona: string;
}

describe('a hostile player against three instances', () => {
  let cluster: Cluster;
  let attacker: Player;
  const honest: Player[] = [];
  const bystanders: string[] = [];
  const peaks = new Map<number, number>();

  const signIn = async (subject: string, index: number): Promise<Player> => {
    const token = await cluster.signIn(subject, cluster.instances[index % INSTANCES]);
    const personas = await call(cluster.instances[0].url, 'GET', '/personas', token);
    return { token, uid: decodeJwt(token).sub!, persona: personas.body[0].uid };
  };
  let turn = 0;
  const next = () => cluster.instances[turn++ % INSTANCES].url;
  const samplePeaks = async () => {
    for (const instance of cluster.instances) {
      const { peak } = await residentMemory(instance.process.pid!);
      peaks.set(instance.index, Math.max(peaks.get(instance.index) ?? 0, peak));
    }
  };

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(
      INSTANCES,
      {
        RATE_LIMIT_ENABLED: 'true',
        // Every client here shares 127.0.0.1: the per-address budgets would stand for a whole city.
        RATE_LIMIT_IP_PER_MINUTE: '1000000',
        RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
        REALTIME_INBOX_MAX: String(INBOX_MAX),
      },
      { redis: true },
      productionNodeFlags(),
    );
    attacker = await signIn('mallory', 0);
    for (let index = 0; index < HONEST; index++) honest.push(await signIn(`honest-${index}`, index));
    for (let index = 0; index < BYSTANDERS; index++) bystanders.push((await signIn(`bystander-${index}`, index)).uid);
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('lists sessions that an older version let in (10,000 made-up members each) six at a time, within budget and heap', async () => {
    // What the attack left behind before it was closed: a hundred ENDED sessions of 800 KB each.
    const users = Array.from({ length: 10_000 }, () => randomUUID());
    const teams = JSON.stringify([{ id: 0, members: users }]);
    for (let index = 0; index < 100; index++) {
      await cluster.db.query(
        `INSERT INTO sessions ("numTeams", "teamSize", users, teams, "hostUid", visibility, status)
         VALUES (1, 10000, $1::uuid[], $2::jsonb, $3, 'PUBLIC', 'ENDED')`,
        [users, teams, attacker.uid],
      );
    }
    const viewer = honest[0];
    const url = cluster.instances[0].url;
    const sizes: number[] = [];
    for (let round = 0; round < 3; round++) {
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => call(url, 'GET', '/sessions?status=ENDED&limit=1000', viewer.token, undefined, 60_000)),
      );
      for (const reply of replies) {
        expect(reply.status).toBe(200);
        sizes.push(Buffer.byteLength(JSON.stringify(reply.body)));
      }
      await samplePeaks();
    }
    console.log(
      `hostile: 18 listings of 10,000-member sessions: answers of ${Math.max(...sizes)} bytes at most; ` +
        `instance 0 peak RSS ${peaks.get(0)!.toFixed(0)} MiB (heap limit ${HEAP_LIMIT_MIB})`,
    );
    // The first record of a page always comes, even alone over the budget: one such session is 800 KB.
    for (const size of sizes) expect(size).toBeLessThanOrEqual(LIST_BUDGET + 1024 * 1024);
    expect(peaks.get(0)!).toBeLessThan(HEAP_LIMIT_MIB);
  }, 300_000);

  it('answers every honest request while one account does its worst for 30 s, with bounded memory and inboxes', async () => {
    const lobby = await call(next(), 'POST', '/sessions', honest[0].token, { numTeams: 4, teamSize: 25, visibility: 'PUBLIC' });
    expect(lobby.status).toBe(201);
    const locked = await call(next(), 'POST', '/sessions', honest[1].token, { numTeams: 1, teamSize: 4, password: '4821' });
    expect(locked.status).toBe(201);
    const sockets = await Promise.all(honest.slice(0, 5).map((player) => RealtimeClient.connect(next(), { token: player.token })));

    const deadline = Date.now() + RUN_MS;
    const going = () => Date.now() < deadline;
    const honestReplies: Array<Reply & { what: string }> = [];
    const hostileReplies: Array<Reply & { what: string }> = [];
    const loop =
      (into: typeof honestReplies, what: string, work: () => Promise<Reply>, pauseMs = 0) =>
      async () => {
        while (going()) {
          into.push({ ...(await work()), what });
          if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        }
      };
    const upgrade = async (): Promise<Reply> => {
      const started = Date.now();
      try {
        const client = await RealtimeClient.connect(next(), { ticket: randomBytes(24).toString('base64url') });
        await client.close();
        return { status: 101, body: undefined, took: Date.now() - started };
      } catch (error) {
        return { status: error instanceof RefusedUpgrade ? error.status : 0, body: { error: String(error) }, took: Date.now() - started };
      }
    };

    let hostileSession: string | undefined;
    let invitedAll = false;
    const hostile = [
      // The largest session allowed, inviting a hundred bystanders, then its invitations churned.
      loop(hostileReplies, 'session churn', async () => {
        if (!hostileSession) {
          const created = await call(next(), 'POST', '/sessions', attacker.token, { numTeams: 100, teamSize: 1, invited: bystanders });
          if (created.status === 201) hostileSession = created.body.uid as string;
          return created;
        }
        invitedAll = !invitedAll;
        return call(next(), 'PUT', `/sessions/${hostileSession}`, attacker.token, { invited: invitedAll ? bystanders : [] });
      }),
      loop(hostileReplies, 'sessions of strangers', () =>
        call(next(), 'POST', '/sessions', attacker.token, {
          numTeams: 1,
          teamSize: 2,
          users: honest.map((player) => player.uid).slice(0, 2),
        }),
      ),
      loop(hostileReplies, 'big lists', () => call(next(), 'GET', '/sessions?limit=1000', attacker.token)),
      loop(hostileReplies, 'oversized bodies', () =>
        call(next(), 'POST', '/sessions', attacker.token, {
          numTeams: 100,
          teamSize: 100,
          users: Array.from({ length: 10_000 }, () => randomUUID()),
        }),
      ),
      loop(hostileReplies, 'password guesses', () =>
        call(next(), 'GET', `/sessions/${locked.body.uid}/join?password=${Math.floor(Math.random() * 10_000)}`, attacker.token),
      ),
      loop(hostileReplies, 'upgrade floods', upgrade),
      loop(hostileReplies, 'huge progress', () =>
        call(next(), 'POST', `/personas/${attacker.persona}/archetypes/a/skills/s/progress`, attacker.token, { value: 1e308 }),
      ),
    ];
    const honestWork = honest.map((player, index) =>
      loop(
        honestReplies,
        'play',
        async () => {
          switch (Math.floor(Math.random() * 5)) {
            case 0:
              return call(next(), 'GET', `/sessions/${lobby.body.uid}/join`, player.token);
            case 1:
              return call(next(), 'GET', `/sessions/${lobby.body.uid}/leave`, player.token);
            case 2:
              return call(next(), 'GET', '/sessions?limit=20', player.token);
            case 3:
              return call(next(), 'GET', '/notifications?limit=50', player.token);
            default:
              return call(next(), 'POST', `/personas/${player.persona}/archetypes/hero/skills/run/progress`, player.token, {
                value: index + 1,
              });
          }
          // A player's pace: five requests a second, half the per-user budget.
        },
        200,
      ),
    );
    const sampler = (async () => {
      while (going()) {
        await samplePeaks();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    await Promise.all([...hostile.map((work) => work()), ...honestWork.map((work) => work()), sampler]);
    await samplePeaks();

    const byWhat = (replies: typeof honestReplies) =>
      Object.fromEntries(
        [...new Set(replies.map((reply) => reply.what))].map((what) => [what, tally(replies.filter((reply) => reply.what === what))]),
      );
    console.log(
      `hostile: ${RUN_MS / 1000} s on ${INSTANCES} instances: honest ${JSON.stringify(tally(honestReplies))}, ` +
        `attacker ${JSON.stringify(byWhat(hostileReplies))}; peak RSS ${[...peaks.values()].map((peak) => peak.toFixed(0)).join(' / ')} MiB`,
    );

    expect(honestReplies.length).toBeGreaterThan(100);
    const badHonest = honestReplies.filter((reply) => reply.status === 0 || reply.status >= 500 || reply.status === 429);
    expect(badHonest).toEqual([]);
    expect(hostileReplies.filter((reply) => reply.status === 0 || reply.status >= 500)).toEqual([]);
    // The account was held to its budget across instances (Redis), and its bodies refused.
    expect(hostileReplies.some((reply) => reply.status === 429)).toBe(true);
    expect(
      hostileReplies.filter((reply) => reply.what === 'oversized bodies').every((reply) => [400, 413, 429].includes(reply.status)),
    ).toBe(true);
    for (const peak of peaks.values()) expect(peak).toBeLessThan(HEAP_LIMIT_MIB);
    // Nobody was seated by the attacker, and the sockets of honest players stayed open.
    const { rows: seated } = await cluster.db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM sessions WHERE "hostUid" = $1 AND users && $2::uuid[]`,
      [attacker.uid, honest.map((player) => player.uid)],
    );
    expect(seated[0].count).toBe(0);
    for (const socket of sockets) expect(socket.socket.readyState).toBe(socket.socket.OPEN);
    await Promise.all(sockets.map((socket) => socket.close()));
    // The inboxes the attacker wrote to are trimmed within seconds of the last write.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const { rows: inboxes } = await cluster.db.query<{ largest: number }>(
      `SELECT coalesce(max(n), 0)::int AS largest FROM (SELECT count(*) AS n FROM notifications WHERE "userUid" = ANY($1::uuid[]) GROUP BY "userUid") AS counts`,
      [bystanders],
    );
    expect(inboxes[0].largest).toBeLessThanOrEqual(INBOX_MAX);
  }, 300_000);
});
