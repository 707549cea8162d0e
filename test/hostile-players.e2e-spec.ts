import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { InboxTrimmer } from '../src/realtime/inbox-trimmer.js';
import { SessionLivenessService } from '../src/sessions/session-liveness.service.js';
import type { SessionBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';
import { type SignedInPlayer, TestApp, type TestResponse } from './support/test-app.js';

/**
 * What one ordinary account could do to others (issue 25), each attack first as it was seen, then
 * what stops it: the work of a request and the size of an answer are bounded, nobody is listed in a
 * session without consent, an inbox cannot be flooded, ended sessions do not pile up, and a session
 * password cannot be guessed. (The embedded database, socket upgrades, logs and numbers have their own
 * suites: test/embedded-postgres, test/realtime, test/sessions and test/skills.)
 */
const BUDGET = 64 * 1024;
const TIMEOUT_SECONDS = 1;

describe('hostile players', () => {
  let api: TestApp;
  let admin: SignedInPlayer;

  beforeAll(async () => {
    api = await TestApp.start({
      LIST_MAX_BYTES: String(BUDGET),
      REALTIME_INBOX_MAX: '10',
      SESSION_RETENTION: '1',
      SESSION_MEMBER_TIMEOUT: String(TIMEOUT_SECONDS),
      SESSION_PASSWORD_ATTEMPTS: '5',
      SESSION_PASSWORD_ATTEMPTS_PER_SESSION: '8',
    });
    admin = await api.signInPlayer('admin');
  });

  afterAll(async () => {
    await api?.close();
  });

  const bytesOf = (response: TestResponse) => Buffer.byteLength(JSON.stringify(response.body));
  const inboxOf = async (player: SignedInPlayer) =>
    (await api.get<Array<{ type: string; data: Record<string, unknown> }>>('/notifications?limit=1000', { token: player.token })).body;

  describe('bounded work per request', () => {
    it('refuses the sessions of ten thousand made-up members that took the service down', async () => {
      const [host] = await api.signInPlayers(1, 'crowder');
      const users = Array.from({ length: 10_000 }, () => randomUUID());
      for (const body of [
        { numTeams: 100, teamSize: 100, users },
        { numTeams: 100, teamSize: 100 },
        { numTeams: 10, teamSize: 1000 },
        { numTeams: 1, teamSize: 2, invited: users.slice(0, 1000) },
      ]) {
        const response = await api.post('/sessions', body, { token: host.token });
        expectErrorBody(response, 400, 'VALIDATION_FAILED');
      }
      const { rows } = await api.database.query<{ count: number }>('SELECT count(*)::int AS count FROM sessions WHERE "hostUid" = $1', [
        host.uid,
      ]);
      expect(rows[0].count).toBe(0);
    });

    it('keeps every list page within LIST_MAX_BYTES, and X-Next-Skip leads through all of them, each record once', async () => {
      const players = await api.signInPlayers(200, 'crowd');
      const [seated, invited] = [players.slice(0, 100).map((player) => player.uid), players.slice(100).map((player) => player.uid)];
      // The largest sessions the API allows: 100 seats in 100 teams, all taken (an admin seats), 100 invited.
      const created: string[] = [];
      for (let index = 0; index < 30; index++) {
        const response = await api.post<SessionBody>(
          '/sessions',
          { numTeams: 100, teamSize: 1, users: seated, invited, visibility: 'PUBLIC' },
          { token: admin.token },
        );
        expect(response.status).toBe(201);
        created.push(response.body.uid);
      }
      const viewer = players[0];
      const seen: string[] = [];
      let skip = 0;
      let pages = 0;
      for (;;) {
        const page = await api.get<SessionBody[]>(`/sessions?limit=1000&skip=${skip}&visibility=PUBLIC`, { token: viewer.token });
        expect(page.status).toBe(200);
        expect(bytesOf(page)).toBeLessThanOrEqual(BUDGET);
        expect(page.body.length).toBeGreaterThan(0);
        seen.push(...page.body.map((session) => session.uid));
        pages += 1;
        const next = page.headers['x-next-skip'];
        if (next === undefined) break;
        expect(Number(next)).toBe(skip + page.body.length);
        skip = Number(next);
      }
      expect(pages).toBeGreaterThan(1);
      expect(seen.filter((uid) => created.includes(uid))).toEqual(created);
      expect(new Set(seen).size).toBe(seen.length);
    }, 120_000);

    it('answers a page of one record still, when that record alone passes the budget (sessions an older version let in)', async () => {
      const [host] = await api.signInPlayers(1, 'legacy');
      // What an older version accepted: ten thousand uids that name nobody, some 800 KB a record.
      const users = Array.from({ length: 10_000 }, () => randomUUID());
      const teams = JSON.stringify([{ id: 0, members: users }]);
      for (let index = 0; index < 3; index++) {
        await api.database.query(
          `INSERT INTO sessions ("numTeams", "teamSize", users, teams, "hostUid", visibility, status)
           VALUES (1, 10000, $1::uuid[], $2::jsonb, $3, 'PUBLIC', 'ENDED')`,
          [users, teams, host.uid],
        );
      }
      const page = await api.get<SessionBody[]>(`/sessions?hostUid=${host.uid}&limit=1000`, { token: host.token });
      expect(page.status).toBe(200);
      expect(page.body).toHaveLength(1);
      expect(page.headers['x-next-skip']).toBe('1');
      const count = await api.get(`/sessions/count?hostUid=${host.uid}`, { token: host.token });
      expect(count.body).toEqual({ count: 3 });
    });

    it('cuts the inbox over REST to the budget too', async () => {
      const player = await api.signInWithPersona('inbox-reader');
      const items: string[] = [];
      for (let index = 0; index < 100; index++)
        items.push((await api.post('/items', { name: `Shard ${index}` }, { token: admin.token })).body.uid);
      // Each award of a hundred items tells the player of a hundred holdings and the transaction's snapshots.
      for (let award = 0; award < 6; award++) {
        const response = await api.post(
          '/inventories/transaction',
          { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: items.map((itemUid) => ({ itemUid, quantity: 1 })) },
          { token: admin.token },
        );
        expect(response.status).toBe(200);
      }
      const events = await inboxOf(player);
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.length).toBeLessThan(12);
      expect(Buffer.byteLength(JSON.stringify(events))).toBeLessThanOrEqual(BUDGET);
      // Reading on after the last one received gets the rest, none twice.
      const rest = (
        await api.get<Array<{ id: string }>>(`/notifications?limit=1000&after=${(events.at(-1) as unknown as { id: string }).id}`, {
          token: player.token,
        })
      ).body;
      expect(rest.length).toBeGreaterThan(0);
      expect(new Set([...events, ...rest].map((event) => (event as unknown as { id: string }).id)).size).toBe(events.length + rest.length);
    });
  });

  describe('nobody is listed without consent', () => {
    it('invites a bystander named as a member instead of seating them, and sends them one small notice, never the session', async () => {
      const [host, bystander] = await api.signInPlayers(2, 'bystander');
      const created = await api.post<SessionBody>(
        '/sessions',
        { numTeams: 2, teamSize: 2, users: [host.uid, bystander.uid] },
        { token: host.token },
      );
      expect(created.status).toBe(201);
      expect(created.body.users).toEqual([host.uid]);
      expect(created.body.invited).toEqual([bystander.uid]);
      for (let update = 0; update < 5; update++) {
        const status = update % 2 === 0 ? 'IDLE' : 'WAITING_FOR_PLAYERS';
        expect((await api.put(`/sessions/${created.body.uid}`, { status }, { token: host.token })).status).toBe(200);
      }
      const inbox = await inboxOf(bystander);
      expect(inbox.map((event) => event.type)).toEqual(['session.invited']);
      expect(Buffer.byteLength(JSON.stringify(inbox[0]))).toBeLessThan(1024);
      expect(inbox[0].data).toEqual({
        uid: created.body.uid,
        version: 0,
        status: 'WAITING_FOR_PLAYERS',
        visibility: 'PUBLIC',
        hostUid: host.uid,
      });
    });

    it('refuses uids that name nobody, in users, invited and ticket parties', async () => {
      const [host] = await api.signInPlayers(1, 'namer');
      const nobody = randomUUID();
      expectErrorBody(
        await api.post('/sessions', { numTeams: 1, teamSize: 2, invited: [nobody] }, { token: host.token }),
        400,
        'VALIDATION_FAILED',
      );
      expectErrorBody(
        await api.post('/sessions', { numTeams: 1, teamSize: 2, users: [host.uid, nobody] }, { token: host.token }),
        400,
        'VALIDATION_FAILED',
      );
      const ticket = await api.post('/tickets', { numTeams: 2, teamSize: 2, users: [host.uid, nobody] }, { token: host.token });
      expectErrorBody(ticket, 400, 'VALIDATION_FAILED');
      expect(ticket.body.message).toContain(nobody);
    });

    it('writes a member change to the host and members only: one row per member, none for the hundred invited', async () => {
      const [host, member, ...guests] = await api.signInPlayers(102, 'fanout');
      const session = await api.post<SessionBody>(
        '/sessions',
        { numTeams: 1, teamSize: 2, invited: guests.map((guest) => guest.uid) },
        { token: host.token },
      );
      expect(session.status).toBe(201);
      expect((await api.get(`/sessions/${session.body.uid}/join`, { token: member.token })).status).toBe(200);
      const count = async () =>
        (
          await api.database.query<{ count: number }>(`SELECT count(*)::int AS count FROM notifications WHERE data ->> 'uid' = $1`, [
            session.body.uid,
          ])
        ).rows[0].count;
      const before = await count();
      for (let update = 0; update < 3; update++) {
        expect((await api.put(`/sessions/${session.body.uid}`, { backfill: update % 2 === 0 }, { token: host.token })).status).toBe(200);
      }
      expect((await count()) - before).toBe(3 * 2);
    });

    it('keeps an inbox to REALTIME_INBOX_MAX: the oldest events go first, and the metric counts them', async () => {
      const [host, target] = await api.signInPlayers(2, 'flooder');
      const session = await api.post<SessionBody>('/sessions', { numTeams: 1, teamSize: 2 }, { token: host.token });
      for (let round = 0; round < 15; round++) {
        expect((await api.put(`/sessions/${session.body.uid}`, { invited: [target.uid] }, { token: host.token })).status).toBe(200);
        expect((await api.put(`/sessions/${session.body.uid}`, { invited: [] }, { token: host.token })).status).toBe(200);
      }
      // Fifteen invitations were written (the trimmer's own timer may have trimmed some already).
      expect((await inboxOf(target)).length).toBeGreaterThanOrEqual(10);
      await api.app.get(InboxTrimmer).trimOnce();
      const kept = await inboxOf(target);
      expect(kept).toHaveLength(10);
      // The newest are kept: the last invitation was at the session's version 29.
      expect(kept.at(-1)!.data.version).toBe(29);
      const metrics = await api.get('/metrics');
      expect(metrics.body).toMatch(/realtime_events_dropped_total \d+/);
      expect(Number(/realtime_events_dropped_total (\d+)/.exec(metrics.body as string)![1])).toBeGreaterThanOrEqual(5);
    });
  });

  describe('sweeps', () => {
    it('removes sessions ENDED longer than SESSION_RETENTION with their rosters, and nothing else', async () => {
      const [host, member] = await api.signInPlayers(2, 'ender');
      const ended = await api.post<SessionBody>('/sessions', { numTeams: 1, teamSize: 2, status: 'ENDED' }, { token: host.token });
      const live = await api.post<SessionBody>('/sessions', { numTeams: 1, teamSize: 2 }, { token: host.token });
      expect((await api.get(`/sessions/${live.body.uid}/join`, { token: member.token })).status).toBe(200);
      await sleep(1200);
      expect(await api.app.get(SessionLivenessService).purgeEndedOnce()).toBeGreaterThanOrEqual(1);
      expectErrorBody(await api.get(`/sessions/${ended.body.uid}`, { token: host.token }), 404, 'NOT_FOUND');
      expect((await api.get(`/sessions/${live.body.uid}`, { token: host.token })).status).toBe(200);
    });

    it('sweeps silent members a session at a time: a swept session is free again while the sweep goes on', async () => {
      const players = await api.signInPlayers(40, 'sleeper');
      const sessions: string[] = [];
      for (const player of players) {
        const response = await api.post<SessionBody>(
          '/sessions',
          { numTeams: 1, teamSize: 2, status: 'IN_PROGRESS' },
          { token: player.token },
        );
        sessions.push(response.body.uid);
      }
      await sleep(TIMEOUT_SECONDS * 1000 + 200);
      const liveness = api.app.get(SessionLivenessService);
      let finished = false;
      const sweep = liveness.sweepOnce().finally(() => (finished = true));
      const client = await api.database.connect();
      let seenFreeEarly = false;
      try {
        while (!finished && !seenFreeEarly) {
          await client.query('BEGIN');
          const free = await client
            .query(`SELECT cardinality(users) AS members FROM sessions WHERE uid = $1 FOR UPDATE NOWAIT`, [sessions[0]])
            .catch(() => undefined);
          await client.query('ROLLBACK');
          if (free?.rows[0]?.members === 0) {
            const { rows } = await api.database.query<{ left: number }>(
              'SELECT count(*)::int AS left FROM sessions WHERE uid = ANY($1::uuid[]) AND cardinality(users) > 0',
              [sessions],
            );
            // The first session is swept and unlocked while others still wait for theirs.
            seenFreeEarly = rows[0].left > 0;
          }
        }
      } finally {
        client.release();
      }
      // Older sessions of this file have silent members too: they go first, then these forty.
      expect(await sweep).toBeGreaterThanOrEqual(40);
      expect(seenFreeEarly).toBe(true);
      const { rows } = await api.database.query<{ left: number }>(
        'SELECT count(*)::int AS left FROM sessions WHERE uid = ANY($1::uuid[]) AND cardinality(users) > 0',
        [sessions],
      );
      expect(rows[0].left).toBe(0);
    });
  });

  describe('session passwords', () => {
    it('answers the sixth wrong password in a minute with 429 and Retry-After, and then refuses the right one too', async () => {
      const [host, guesser, other] = await api.signInPlayers(3, 'guesser');
      const session = await api.post<SessionBody>('/sessions', { numTeams: 1, teamSize: 4, password: '731' }, { token: host.token });
      const guess = (player: SignedInPlayer, password: string) =>
        api.get(`/sessions/${session.body.uid}/join`, { token: player.token, headers: { 'x-session-password': password } });
      for (let attempt = 0; attempt < 5; attempt++) expectErrorBody(await guess(guesser, String(100 + attempt)), 403, 'FORBIDDEN');
      const refused = await guess(guesser, '105');
      expectErrorBody(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expectErrorBody(await guess(guesser, '731'), 429, 'RATE_LIMITED');
      // Another player has guesses of their own, until the session's budget (8) is spent by everyone together.
      expectErrorBody(await guess(other, '200'), 403, 'FORBIDDEN');
      expectErrorBody(await guess(other, '201'), 403, 'FORBIDDEN');
      expectErrorBody(await guess(other, '202'), 403, 'FORBIDDEN');
      expectErrorBody(await guess(other, '731'), 429, 'RATE_LIMITED');
      // The host and invited users need no password, and so are never held up.
      expect((await api.get(`/sessions/${session.body.uid}/join`, { token: host.token })).status).toBe(200);
    });

    it('takes the password from the X-Session-Password header, and still from ?password=', async () => {
      const [host, first, second] = await api.signInPlayers(3, 'knower');
      const session = await api.post<SessionBody>(
        '/sessions',
        { numTeams: 1, teamSize: 4, password: 'open sesame' },
        { token: host.token },
      );
      const byHeader = await api.get(`/sessions/${session.body.uid}/join`, {
        token: first.token,
        headers: { 'x-session-password': 'open sesame' },
      });
      expect(byHeader.status).toBe(200);
      const byQuery = await api.get(`/sessions/${session.body.uid}/join?password=open%20sesame`, { token: second.token });
      expect(byQuery.status).toBe(200);
      expect(byQuery.body.users).toEqual([host.uid, first.uid, second.uid]);
    });
  });
});
