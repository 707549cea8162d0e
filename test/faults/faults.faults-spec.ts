import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { call, Cluster, postOnNewConnection, type Reply, tally, waitUntil } from './cluster.js';
import { economyViolations, sessionViolations } from './invariants.js';
import { RealtimeClient } from '../support/realtime-client.js';

/**
 * Three service instances over one PostgreSQL, as behind a load balancer, through the faults of a
 * launch day. Every scenario prints its figures and fails on any broken invariant.
 */
const INSTANCES = 3;
const PLAYERS = 30;

describe('faults and scale-out', () => {
  let cluster: Cluster;
  let admin: string;
  const players: Array<{ token: string; uid: string; persona: string }> = [];
  const items: string[] = [];
  /** Round-robin over the instances that are up, as a load balancer would spread requests. */
  let turn = 0;
  const next = (exclude: number[] = []) => {
    const up = cluster.instances.filter((instance) => !exclude.includes(instance.index));
    return up[turn++ % up.length].url;
  };
  /** The log lines of any instance that mention a request id. */
  const loggedFor = (requestId: unknown) =>
    cluster.instances.flatMap((instance) =>
      instance.output.split('\n').filter((line) => typeof requestId === 'string' && line.includes(requestId)),
    );

  beforeAll(async () => {
    execFileSync('npx', ['nest', 'build'], { stdio: 'pipe' });
    cluster = await Cluster.start(INSTANCES, { MATCHMAKER_INTERVAL: '100' });
    admin = await cluster.signIn('admin');
    for (let index = 0; index < PLAYERS; index++) {
      const token = await cluster.signIn(`player-${index}`, cluster.instances[index % INSTANCES]);
      const personas = await call(cluster.instances[0].url, 'GET', '/personas', token);
      players.push({ token, uid: decodeJwt(token).sub!, persona: personas.body[0].uid });
    }
    for (const name of ['Sword', 'Shield', 'Gold']) {
      items.push((await call(next(), 'POST', '/items', admin, { name })).body.uid);
    }
    // Every persona starts with 100 of each item.
    for (const player of players) {
      const award = await call(next(), 'POST', '/inventories/transaction', admin, {
        type: 'AWARD',
        personaOneUid: player.persona,
        personaOneInventoryItems: items.map((itemUid) => ({ itemUid, quantity: 100 })),
      });
      expect(award.status).toBe(200);
    }
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  const gift = (from: (typeof players)[number], to: (typeof players)[number], base: string, key?: string) =>
    call(base, 'POST', '/inventories/transaction', from.token, {
      personaOneUid: from.persona,
      personaTwoUid: to.persona,
      personaOneInventoryItems: [{ itemUid: items[Math.floor(Math.random() * items.length)], quantity: 1 + Math.floor(Math.random() * 3) }],
    }).then((reply) => ({ ...reply, key }));

  const randomGift = (base: string) => {
    const from = players[Math.floor(Math.random() * 12)];
    let to = players[Math.floor(Math.random() * 12)];
    if (to === from) to = players[(players.indexOf(from) + 1) % 12];
    return gift(from, to, base);
  };

  /** Runs `workers` loops of `work` while `going()` holds; returns every reply. */
  async function load(workers: number, going: () => boolean, work: () => Promise<Reply>): Promise<Reply[]> {
    const replies: Reply[] = [];
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (going()) replies.push(await work());
      }),
    );
    return replies;
  }
  /** `count` calls of `work`, at most `limit` at a time. */
  async function inParallel(count: number, limit: number, work: () => Promise<Reply>): Promise<Reply[]> {
    const replies: Reply[] = [];
    let started = 0;
    await Promise.all(
      Array.from({ length: limit }, async () => {
        while (started < count) {
          started += 1;
          replies.push(await work());
        }
      }),
    );
    return replies;
  }

  it('keeps every invariant under mixed load spread over all instances', async () => {
    const session = await call(next(), 'POST', '/sessions', admin, { numTeams: 2, teamSize: 5, users: [] });
    expect(session.status).toBe(201);
    const skillPath = `/personas/${players[0].persona}/archetypes/warrior/skills/swordplay/progress`;

    const [joins, progress, tickets, trades] = await Promise.all([
      Promise.all(players.map((player) => call(next(), 'GET', `/sessions/${session.body.uid}/join`, player.token))),
      Promise.all(Array.from({ length: 60 }, () => call(next(), 'POST', skillPath, players[0].token, { value: 1 }))),
      Promise.all(
        players
          .slice(10)
          .map((player) =>
            call(next(), 'POST', '/tickets', player.token, { numTeams: 2, teamSize: 2, statistics: [{ name: 'skill', value: 1 }] }),
          ),
      ),
      // 200 trades from 24 clients at a time: load, not a stampede (many more at once on 12 personas
      // queue on their row locks past the pools' 5 s wait, and 503 is then the right answer).
      inParallel(200, 24, () => randomGift(next())),
    ]);

    await waitUntil(async () => {
      const waiting = await cluster.db.query(`SELECT count(*)::int AS n FROM tickets WHERE status = 'SEARCHING'`);
      return waiting.rows[0].n === 0;
    }, 20_000);
    const members = await cluster.db.query('SELECT cardinality(users) AS n FROM sessions WHERE uid = $1', [session.body.uid]);
    const skill = await cluster.db.query(`SELECT progress FROM skill_progress WHERE "skillUid" = 'swordplay'`);
    const matched = await cluster.db.query(`SELECT count(DISTINCT "sessionUid")::int AS n FROM tickets WHERE status = 'MATCH_FOUND'`);
    const figures = {
      joins: tally(joins),
      sessionMembers: members.rows[0].n,
      addProgress: tally(progress),
      progress: skill.rows[0].progress,
      tickets: tally(tickets),
      matchedSessions: matched.rows[0].n,
      trades: tally(trades),
    };
    console.log('mixed load', JSON.stringify(figures));

    expect(tally(joins)).toEqual({ 200: 10, 409: 20 });
    expect(members.rows[0].n).toBe(10);
    expect(tally(progress)).toEqual({ 204: 60 });
    expect(skill.rows[0].progress).toBe(60);
    expect(tally(tickets)).toEqual({ 201: 20 });
    expect(matched.rows[0].n).toBe(5);
    expect(trades.every((reply) => reply.status === 200 || reply.status === 409)).toBe(true);
    expect([...(await economyViolations(cluster.db)), ...(await sessionViolations(cluster.db))]).toEqual([]);
  }, 120_000);

  it('loses no transaction half-way when an instance is killed under trade load', async () => {
    const victim = cluster.instances[1];
    const replies: Array<Reply & { instance: number }> = [];
    const killAt = setTimeout(() => victim.process.kill('SIGKILL'), 1500);
    const until = Date.now() + 4000;
    await Promise.all(
      Array.from({ length: 9 }, async (_, worker) => {
        while (Date.now() < until) {
          const instance = cluster.instances[worker % INSTANCES];
          replies.push({ ...(await randomGift(instance.url)), instance: instance.index });
        }
      }),
    );
    clearTimeout(killAt);
    await victim.exited;

    const survivors = replies.filter((reply) => reply.instance !== victim.index);
    const onVictim = replies.filter((reply) => reply.instance === victim.index);
    const restarted = await cluster.startInstance(victim.index);
    const afterRestart = await randomGift(restarted.url);
    console.log(
      'instance killed',
      JSON.stringify({ survivors: tally(survivors), victim: tally(onVictim), afterRestart: afterRestart.status }),
    );

    expect(onVictim.some((reply) => reply.status === 0)).toBe(true); // it really went away mid-load
    expect(survivors.every((reply) => reply.status === 200 || reply.status === 409)).toBe(true);
    expect([200, 409]).toContain(afterRestart.status);
    expect(await economyViolations(cluster.db)).toEqual([]);
  }, 120_000);

  it('pushes events across instances, and after an instance is killed mid-burst its clients resume elsewhere: each event once', async () => {
    const watched = players.slice(12, 24);
    const victim = cluster.instances[1];
    // Half the players listen on the instance about to die, half on another; the trades go through a third.
    const sockets = new Map<string, RealtimeClient[]>();
    for (const [index, player] of watched.entries()) {
      const instance = index % 2 === 0 ? victim : cluster.instances[2];
      sockets.set(player.uid, [await RealtimeClient.connect(instance.url, { token: player.token })]);
    }
    const starts = new Map([...sockets].map(([uid, [socket]]) => [uid, socket.frames[0].id]));

    const tradeOnce = () => {
      const from = watched[Math.floor(Math.random() * watched.length)];
      const to = watched[(watched.indexOf(from) + 1 + Math.floor(Math.random() * (watched.length - 1))) % watched.length];
      return gift(from, to, cluster.instances[Math.random() < 0.5 ? 0 : 2].url);
    };
    const killAt = setTimeout(() => victim.process.kill('SIGKILL'), 1000);
    const until = Date.now() + 3000;
    const replies = await load(6, () => Date.now() < until, tradeOnce);
    clearTimeout(killAt);
    await victim.exited;

    // The victim's clients reconnect to a surviving instance and resume after the last id they got.
    for (const [uid, [first]] of sockets) {
      if (first.socket.readyState === first.socket.OPEN) continue;
      const player = watched.find((candidate) => candidate.uid === uid)!;
      sockets.get(uid)!.push(await RealtimeClient.connect(cluster.instances[0].url, { token: player.token, after: first.lastId }));
    }
    // What each user must have received: every event of their inbox after their first socket's start.
    const delivered: number[] = [];
    for (const [uid, clients] of sockets) {
      const [xid, id] = starts.get(uid)!.split('-');
      // Not `AS id`: ORDER BY would then sort by the text ("3398-10000" before "3398-9998"), not by the column.
      const { rows } = await cluster.db.query<{ eventId: string }>(
        `SELECT xid::text || '-' || id::text AS "eventId" FROM notifications WHERE "userUid" = $1 AND (xid, id) > ($2::text::xid8, $3::bigint) ORDER BY xid, id`,
        [uid, xid, id],
      );
      const expected = rows.map((row) => row.eventId);
      const received = () => clients.flatMap((client) => client.events.map((event) => event.id));
      await waitUntil(async () => received().length >= expected.length, 15_000).catch(() => undefined);
      expect({ uid, received: received() }).toEqual({ uid, received: expected });
      delivered.push(expected.length);
      await Promise.all(clients.map((client) => client.close()));
    }
    console.log('realtime across instances', JSON.stringify({ trades: tally(replies), eventsPerClient: delivered }));
    expect(delivered.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(50);
    await cluster.startInstance(victim.index);
    expect(await economyViolations(cluster.db)).toEqual([]);
  }, 120_000);

  it('answers 503 while PostgreSQL is down, recovers by itself, and loses nothing acknowledged', async () => {
    const outageMs = 5000;
    const acknowledged: string[] = [];
    const phases: Record<'before' | 'during' | 'after', Reply[]> = { before: [], during: [], after: [] };
    let phase: 'before' | 'during' | 'after' = 'before';
    let readyDuringOutage: number[] = [];
    let recoveredIn = -1;

    const work = async () => {
      const started = phase;
      const reply = Math.random() < 0.5 ? await randomGift(next()) : await call(next(), 'GET', `/items/${items[0]}`, players[0].token);
      phases[started].push(reply);
      if (reply.status === 200 && reply.body?.type === 'TRADE') acknowledged.push(reply.body.uid);
      return reply;
    };
    let outageOver = false;
    // However the driver ends, the load ends with it: a failed recovery must not leave requests running forever.
    const driver = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      phase = 'during';
      await cluster.stopDatabase();
      await new Promise((resolve) => setTimeout(resolve, outageMs / 2));
      readyDuringOutage = await Promise.all(
        cluster.instances.map(async (instance) => (await call(instance.url, 'GET', '/health/ready')).status),
      );
      await new Promise((resolve) => setTimeout(resolve, outageMs / 2));
      await cluster.startDatabase();
      const restartedAt = Date.now();
      let statuses: number[] = [];
      await waitUntil(async () => {
        statuses = await Promise.all(cluster.instances.map(async (instance) => (await call(instance.url, 'GET', '/health/ready')).status));
        return statuses.every((status) => status === 200);
      }, 30_000).catch((error: Error) => {
        const state = cluster.instances.map(
          (instance, index) =>
            `instance ${index}: ready ${statuses[index]}, exit ${instance.process.exitCode}\n${instance.output.slice(-1500)}`,
        );
        throw new Error(`${error.message} after the database came back\n${state.join('\n')}`);
      });
      recoveredIn = Date.now() - restartedAt;
      phase = 'after';
      await new Promise((resolve) => setTimeout(resolve, 2000));
    })().finally(() => {
      outageOver = true;
    });
    await Promise.all([driver, load(6, () => !outageOver, work)]);
    const after = phases.after;

    const during = phases.during;
    const slowest = Math.max(...during.map((reply) => reply.took));
    const stored = await cluster.db.query(
      `SELECT count(*)::int AS n FROM transactions WHERE uid = ANY($1::uuid[]) AND status = 'COMPLETED'`,
      [acknowledged],
    );
    console.log(
      'database outage',
      JSON.stringify({
        before: tally(phases.before),
        during: tally(during),
        after: tally(after),
        readyDuringOutage,
        recoveredInMs: recoveredIn,
        slowestDuringOutageMs: slowest,
        acknowledgedTrades: acknowledged.length,
        storedAfterwards: stored.rows[0].n,
      }),
    );

    expect(cluster.instances.every((instance) => instance.process.exitCode === null)).toBe(true); // no crash
    expect(readyDuringOutage).toEqual([503, 503, 503]);
    const unavailable = during.filter((reply) => reply.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const reply of unavailable) expect(reply.body).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    // Never a 500, neither while the database stops nor while it is away nor after.
    // On failure, the answers and what the instances logged for them say why.
    const unexpected = [...phases.before, ...during, ...after].filter((reply) => ![200, 409, 503].includes(reply.status));
    const logged = unexpected.map((reply) => loggedFor(reply.body?.requestId));
    expect({ unexpected, logged }).toEqual({ unexpected: [], logged: [] });
    expect(slowest).toBeLessThan(10_000); // bounded: no request hangs on a dead database
    expect(recoveredIn).toBeLessThanOrEqual(10_000);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((reply) => reply.status === 200 || reply.status === 409)).toBe(true);
    expect(stored.rows[0].n).toBe(acknowledged.length);
    expect(await economyViolations(cluster.db)).toEqual([]);
  }, 120_000);

  type Instance = (typeof cluster.instances)[number];
  const status = async (instance: Instance, token: string) => (await call(instance.url, 'GET', '/personas', token)).status;
  /** Milliseconds until `instance` refuses `token`, polled closely. */
  const refusedWithin = async (instance: Instance, token: string, since: number) => {
    while ((await status(instance, token)) === 200) {
      if (Date.now() - since > 5000) return Infinity;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return Date.now() - since;
  };

  it('bans, signs out and revokes on every instance within a second, also when the fan-out is interrupted', async () => {
    const [first, second, third] = cluster.instances;

    // A ban on the first instance reaches the others, and the socket open on the third.
    const session = await cluster.openSession('banned-across-instances', first);
    const uid = decodeJwt(session.token).sub!;
    const socket = await RealtimeClient.connect(third.url, { token: session.token });
    for (const instance of cluster.instances) expect(await status(instance, session.token)).toBe(200);
    const ban = await call(first.url, 'POST', `/users/${uid}/ban`, admin, { reason: 'fault suite' });
    const bannedAt = Date.now();
    expect(ban.status).toBe(200);
    const banPropagation = await Promise.all([second, third].map((instance) => refusedWithin(instance, session.token, bannedAt)));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, bannedAt + 1000 - Date.now())));
    for (const instance of cluster.instances) expect(await status(instance, session.token)).toBe(401);
    expect(await socket.closed).toMatchObject({ code: 4403 });
    const refreshed = await call(second.url, 'POST', '/auth/refresh', undefined, { refreshToken: session.refreshToken });
    expect({ status: refreshed.status, code: refreshed.body.code }).toEqual({ status: 403, code: 'BANNED' });
    expect((await cluster.signInResponse('banned-across-instances', third)).status).toBe(403);
    expect((await call(second.url, 'POST', `/users/${uid}/unban`, admin)).status).toBe(200);
    const again = await cluster.openSession('banned-across-instances', third);
    for (const instance of cluster.instances) expect(await status(instance, again.token)).toBe(200);

    // Sign-outs while every instance's LISTEN connection is cut: each instance either hears of it once
    // it listens again, or asks the database meanwhile; none accepts the token a second later.
    const interrupted: number[] = [];
    for (let round = 0; round < 5; round++) {
      const doomed = await cluster.openSession(`signed-out-${round}`, first);
      const kept = await cluster.openSession(`signed-out-${round}`, second);
      await cluster.db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'game-backend fanout'`);
      expect((await call(first.url, 'POST', '/auth/logout', doomed.token)).status).toBe(204);
      const loggedOutAt = Date.now();
      interrupted.push(
        Math.max(...(await Promise.all([second, third].map((instance) => refusedWithin(instance, doomed.token, loggedOutAt))))),
      );
      for (const instance of cluster.instances) {
        expect(await status(instance, doomed.token)).toBe(401);
        expect(await status(instance, kept.token)).toBe(200);
      }
    }
    console.log('revocations across instances', JSON.stringify({ banPropagationMs: banPropagation, afterFanoutCutMs: interrupted }));
    expect(Math.max(...banPropagation, ...interrupted)).toBeLessThanOrEqual(1000);
  }, 120_000);

  it("makes one guest of a device's first sign-ins on every instance, and ends its sessions everywhere within a second of an unlink", async () => {
    const [first, second, third] = cluster.instances;
    const deviceId = randomUUID();
    const signIns = await Promise.all(
      Array.from({ length: 21 }, (_, index) =>
        call(cluster.instances[index % INSTANCES].url, 'POST', '/auth/device', undefined, { deviceId }),
      ),
    );
    expect(signIns.map(({ status }) => status)).toEqual(Array(21).fill(200));
    const uids = new Set(signIns.map(({ body }) => decodeJwt(body.token as string).sub));
    expect(uids.size).toBe(1);
    const deviceTokens = signIns.map(({ body }) => body.token as string);

    const linked = await call(second.url, 'POST', '/account/link/idp1', deviceTokens[0], {
      token: await cluster.providerToken('guest-upgraded'),
    });
    expect(linked.status).toBe(200);
    const provider = await cluster.signIn('guest-upgraded', third);
    expect(decodeJwt(provider).sub).toBe([...uids][0]);
    const socket = await RealtimeClient.connect(third.url, { token: deviceTokens[2] });
    for (const instance of cluster.instances) expect(await status(instance, deviceTokens[instance.index])).toBe(200);

    expect((await call(first.url, 'POST', '/account/unlink/device', provider, { deviceId })).status).toBe(200);
    const unlinkedAt = Date.now();
    const propagation = await Promise.all(
      [second, third].flatMap((instance) => deviceTokens.slice(0, 3).map((token) => refusedWithin(instance, token, unlinkedAt))),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, unlinkedAt + 1000 - Date.now())));
    for (const instance of cluster.instances) {
      for (const token of deviceTokens) expect(await status(instance, token)).toBe(401);
      expect(await status(instance, provider)).toBe(200);
    }
    expect(await socket.closed).toMatchObject({ code: 4403 });
    console.log('device unlink across instances', JSON.stringify({ refusedWithinMs: propagation }));
    expect(Math.max(...propagation)).toBeLessThanOrEqual(1000);
  }, 120_000);

  it('finishes in-flight requests on SIGTERM and refuses new ones cleanly', async () => {
    const leaving = cluster.instances[2];
    const [giver, receiver] = [players[20], players[21]];
    const keys = Array.from({ length: 60 }, (_, index) => `sigterm-${index}`);
    // One persona pair: the trades queue on its row lock, so many are still in flight at SIGTERM.
    const inFlight = keys.map((key) => keyedGift(leaving.url, key));
    function keyedGift(base: string, key: string) {
      return postOnNewConnection(base, '/inventories/transaction', giver.token, key, {
        personaOneUid: giver.persona,
        personaTwoUid: receiver.persona,
        personaOneInventoryItems: [{ itemUid: items[2], quantity: 1 }],
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 40));
    leaving.process.kill('SIGTERM');
    const sigtermAt = Date.now();
    const finishedAt = await Promise.all(inFlight.map((request) => request.then(() => Date.now())));
    // New requests while the instance shuts down: served, or refused cleanly, never left hanging.
    const duringShutdown = await Promise.all(
      Array.from({ length: 20 }, () => call(leaving.url, 'GET', `/items/${items[0]}`, giver.token, undefined, 10_000)),
    );
    const results = await Promise.all(inFlight);
    const exitCode = await leaving.exited;
    const afterwards = await call(leaving.url, 'GET', '/health');

    // A client retries what it did not get an answer for, with the same key, elsewhere: it runs once.
    const unanswered = results.filter((result) => result.status !== 200);
    const retries = (await Promise.all(unanswered.map((result) => keyedGift(cluster.instances[0].url, result.key)))).map(
      (result) => result.status,
    );
    const perKey = await cluster.db.query(
      `SELECT "idempotencyKey" AS key, count(*)::int AS n FROM transactions WHERE "idempotencyKey" LIKE 'sigterm-%' GROUP BY 1`,
    );
    console.log(
      'graceful shutdown',
      JSON.stringify({
        sent: results.length,
        answered: tally(results.map((result) => ({ ...result, took: 0 }))),
        finishedAfterSigterm: finishedAt.filter((time) => time > sigtermAt).length,
        newDuringShutdown: tally(duringShutdown),
        refusedCodes: [...new Set(results.filter((result) => result.status === 0).map((result) => result.body.code))],
        exitCode,
        newRequestAfterExit: afterwards.body,
        retried: retries.length,
        retryStatuses: retries,
      }),
    );

    expect(exitCode).toBe(0);
    // Requests the instance had accepted were still running when SIGTERM came, and were answered.
    expect(results.filter((result, index) => result.status === 200 && finishedAt[index] > sigtermAt).length).toBeGreaterThan(0);
    for (const reply of duringShutdown) {
      if (reply.status === 0) expect(reply.body.error).toBe('ECONNREFUSED');
      else expect([200, 503]).toContain(reply.status);
    }
    for (const result of results) {
      if (result.status === 0) expect(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain(result.body.code);
      else expect([200, 503]).toContain(result.status);
    }
    expect(afterwards).toMatchObject({ status: 0, body: { error: 'ECONNREFUSED' } });
    expect(retries.every((status) => status === 200)).toBe(true);
    expect(perKey.rows.length).toBe(keys.length);
    expect(perKey.rows.every((row) => row.n === 1)).toBe(true);
    expect(await economyViolations(cluster.db)).toEqual([]);
  }, 120_000);
});
