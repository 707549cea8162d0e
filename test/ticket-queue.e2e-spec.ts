import { MatchmakerService } from '../src/matchmaker/matchmaker.service.js';
import type { BodyOrError, ErrorResponse, QueueStatsBody, TicketBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

type Player = SignedInPlayer;

/**
 * The queue's launch-day rules (README "Sessions and matchmaking"): one queue place per player, parties
 * by consent, expiry, and the queue's figures. The matchmaker runs when a test says so (runOnce).
 */
describe('the matchmaking queue', () => {
  let api: TestApp;
  let admin: Player;
  let matchmaker: MatchmakerService;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signInPlayer('admin');
    matchmaker = api.app.get(MatchmakerService);
  });

  afterAll(async () => {
    await api.close();
  });

  beforeEach(async () => {
    expect((await api.delete('/tickets', { token: admin.token })).status).toBe(200);
  });

  const newPlayers = (count: number, label?: string): Promise<Player[]> => api.signInPlayers(count, label);

  const queue = (player: Player, body: Record<string, unknown> = { numTeams: 2 }) =>
    api.post<BodyOrError<TicketBody>>('/tickets', body, { token: player.token });

  const queued = (player: Player, body: Record<string, unknown> = { numTeams: 2 }) =>
    api.created<TicketBody>('/tickets', body, player.token);

  const readTicket = (uid: string) => api.found<TicketBody>(`/tickets/${uid}`, admin.token);

  const storedTickets = async () =>
    (await api.database.query<{ count: number }>('SELECT count(*)::int AS count FROM tickets')).rows[0].count;

  /** The `ticket.updated` events about `ticketUid` in the player's inbox (GET /notifications), oldest first. */
  async function ticketEvents(player: Player, ticketUid: string): Promise<TicketBody[]> {
    const inbox = await api.get<Array<{ type: string; data: TicketBody }>>('/notifications?limit=1000', { token: player.token });
    expect(inbox.status).toBe(200);
    return inbox.body.filter((event) => event.type === 'ticket.updated' && event.data.uid === ticketUid).map((event) => event.data);
  }

  describe('one queue place per player', () => {
    it('refuses a second ticket with 409 ALREADY_QUEUED naming the first, and stores nothing', async () => {
      const [player] = await newPlayers(1, 'twice');
      const first = await queued(player);
      const before = await storedTickets();

      const second = await queue(player, { numTeams: 3 });

      expectErrorBody(second, 409, 'ALREADY_QUEUED');
      expect(second.body).toMatchObject({ ticketUid: first.uid, userUid: player.uid });
      expect(await storedTickets()).toBe(before);
    });

    it('frees the place once the ticket ends: set INVALID (reason CANCELED), deleted, or matched', async () => {
      const [player, rival] = await newPlayers(2, 'requeue');
      const cancelled = await api.put<TicketBody>(`/tickets/${(await queued(player)).uid}`, { status: 'INVALID' }, { token: player.token });
      expect(cancelled.body).toMatchObject({ status: 'INVALID', reason: 'CANCELED' });

      const again = await queued(player);
      expect((await api.delete(`/tickets/${again.uid}`, { token: player.token })).status).toBe(200);
      const third = await queued(player, { numTeams: 2, teamSize: 1 });
      await queued(rival, { numTeams: 2, teamSize: 1 });
      expect(await matchmaker.runOnce()).toBe(1);
      expect((await readTicket(third.uid)).status).toBe('MATCH_FOUND');
      expect((await queue(player)).status).toBe(201);
    });

    it('refuses a party naming a queued player, without telling the host which ticket holds them', async () => {
      const [host, busy] = await newPlayers(2, 'busy');
      await queued(busy);

      const party = await queue(host, { numTeams: 2, teamSize: 2, users: [host.uid, busy.uid] });

      expectErrorBody(party, 409, 'ALREADY_QUEUED');
      expect(party.body).toMatchObject({ userUid: busy.uid });
      expect(party.body.ticketUid).toBeUndefined();
      const added = await queued(host, { numTeams: 2, teamSize: 2 });
      const update = await api.put(`/tickets/${added.uid}`, { users: [host.uid, busy.uid] }, { token: host.token });
      expectErrorBody(update, 409, 'ALREADY_QUEUED');
      expect((await readTicket(added.uid)).users).toEqual([host.uid]);
    });

    it('holds under races: of two tickets queueing one player at once, exactly one is created', async () => {
      const [soloists, members, hosts] = await Promise.all([newPlayers(6, 'racer'), newPlayers(6, 'member'), newPlayers(6, 'host')]);
      // Each soloist sends two tickets at once; each member queues while a host queues a party naming them.
      const [solos, parties] = await Promise.all([
        Promise.all(
          soloists.map(async (player) => (await Promise.all([queue(player), queue(player, { numTeams: 3 })])).map((r) => r.status)),
        ),
        Promise.all(
          members.map(async (member, index) =>
            (
              await Promise.all([queue(member), queue(hosts[index], { numTeams: 2, teamSize: 2, users: [hosts[index].uid, member.uid] })])
            ).map((r) => r.status),
          ),
        ),
      ]);
      for (const statuses of [...solos, ...parties]) expect(statuses.sort()).toEqual([201, 409]);
      for (const player of [...soloists, ...members]) {
        const { rows } = await api.database.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM tickets WHERE users @> ARRAY[$1]::uuid[] AND status IN ('SEARCHING', 'INITIALIZING')`,
          [player.uid],
        );
        expect(rows[0].count).toBe(1);
      }
    });

    it('counts an expired ticket as no place, even before the sweep ends it', async () => {
      const [player] = await newPlayers(1, 'lapsed');
      await queued(player, { numTeams: 2, expiresAt: new Date(Date.now() + 1000).toISOString() });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await queue(player)).status).toBe(201);
    });
  });

  describe('parties by consent', () => {
    it('waits INITIALIZING for the users it names, who are told at once; the last acceptance starts the search', async () => {
      const [host, friend, cousin] = await newPlayers(3, 'party');
      const party = await queued(host, { numTeams: 2, teamSize: 3, users: [host.uid, friend.uid, cousin.uid] });
      expect(party).toMatchObject({ status: 'INITIALIZING', accepted: [host.uid], reason: null });
      expect(await ticketEvents(friend, party.uid)).toEqual([expect.objectContaining({ status: 'INITIALIZING' })]);
      expect(await ticketEvents(host, party.uid)).toEqual([]);

      const first = await api.post<TicketBody>(`/tickets/${party.uid}/accept`, undefined, { token: friend.token });
      expect(first.status).toBe(200);
      expect(first.headers.etag).toBe('"1"');
      expect(first.body).toMatchObject({ status: 'INITIALIZING', accepted: [host.uid, friend.uid], version: 1 });
      // Accepting again changes nothing.
      const again = await api.post<TicketBody>(`/tickets/${party.uid}/accept`, undefined, { token: friend.token });
      expect(again.body).toEqual(first.body);

      const last = await api.post<TicketBody>(`/tickets/${party.uid}/accept`, undefined, { token: cousin.token });
      expect(last.body).toMatchObject({ status: 'SEARCHING', accepted: [host.uid, friend.uid, cousin.uid], version: 2 });
      expect((await ticketEvents(host, party.uid)).map((ticket) => ticket.status)).toEqual(['INITIALIZING', 'SEARCHING']);
    });

    it('is never matched before everyone has accepted', async () => {
      const [host, friend, third, fourth] = await newPlayers(4, 'unready');
      const party = await queued(host, { numTeams: 2, teamSize: 2, users: [host.uid, friend.uid] });
      await queued(third, { numTeams: 2, teamSize: 2 });
      await queued(fourth, { numTeams: 2, teamSize: 2 });
      // The host cannot skip the others' consent.
      const pushed = await api.put<TicketBody>(`/tickets/${party.uid}`, { status: 'SEARCHING' }, { token: host.token });
      expect(pushed.body.status).toBe('INITIALIZING');

      expect(await matchmaker.runOnce()).toBe(0);
      await api.post(`/tickets/${party.uid}/accept`, undefined, { token: friend.token });
      expect(await matchmaker.runOnce()).toBe(1);
      expect((await readTicket(party.uid)).status).toBe('MATCH_FOUND');
    });

    it('ends with reason DECLINED when one of them declines; the others are told; nobody answers it again', async () => {
      const [host, friend, cousin] = await newPlayers(3, 'refusal');
      const party = await queued(host, { numTeams: 2, teamSize: 3, users: [host.uid, friend.uid, cousin.uid] });
      await api.post(`/tickets/${party.uid}/accept`, undefined, { token: friend.token });

      const declined = await api.post<TicketBody>(`/tickets/${party.uid}/decline`, undefined, { token: cousin.token });

      expect(declined.status).toBe(200);
      expect(declined.body).toMatchObject({ status: 'INVALID', reason: 'DECLINED', version: 2 });
      expect((await ticketEvents(host, party.uid)).pop()).toMatchObject({ status: 'INVALID', reason: 'DECLINED' });
      expect((await ticketEvents(friend, party.uid)).pop()).toMatchObject({ status: 'INVALID', reason: 'DECLINED' });
      expect((await api.post(`/tickets/${party.uid}/decline`, undefined, { token: cousin.token })).body).toEqual(declined.body);
      expectErrorBody(await api.post(`/tickets/${party.uid}/accept`, undefined, { token: friend.token }), 409, 'CONFLICT');
      expectErrorBody(await api.put(`/tickets/${party.uid}`, { status: 'SEARCHING' }, { token: host.token }), 409, 'CONFLICT');
      // Their places are free again.
      expect((await queue(cousin)).status).toBe(201);
    });

    it('is answered by the named users only, each for themselves', async () => {
      const [host, friend, stranger] = await newPlayers(3, 'answer');
      const party = await queued(host, { numTeams: 2, teamSize: 2, users: [host.uid, friend.uid] });

      expectErrorBody(await api.post(`/tickets/${party.uid}/accept`, undefined, { token: stranger.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.post(`/tickets/${party.uid}/decline`, undefined, { token: stranger.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.post(`/tickets/${party.uid}/accept`, undefined, { token: admin.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.post(`/tickets/${party.uid}/decline`, undefined, { token: host.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.post('/tickets/not-a-uuid/accept', undefined, { token: friend.token }), 400, 'VALIDATION_FAILED');
      expect(await readTicket(party.uid)).toMatchObject({ status: 'INITIALIZING', accepted: [host.uid], version: 0 });
    });

    it('asks again for the consent of users put on the party later', async () => {
      const [host, latecomer] = await newPlayers(2, 'grow');
      const solo = await queued(host, { numTeams: 2, teamSize: 2 });
      expect(solo.status).toBe('SEARCHING');

      const grown = await api.put<TicketBody>(`/tickets/${solo.uid}`, { users: [host.uid, latecomer.uid] }, { token: host.token });

      expect(grown.body).toMatchObject({ status: 'INITIALIZING', accepted: [host.uid], numUsers: 2 });
      const accepted = await api.post<TicketBody>(`/tickets/${solo.uid}/accept`, undefined, { token: latecomer.token });
      expect(accepted.body.status).toBe('SEARCHING');
    });

    it("takes an admin's party as agreed (a game server queueing its players)", async () => {
      const [first, second] = await newPlayers(2, 'served');
      const party = await queued(admin, { numTeams: 2, teamSize: 2, users: [first.uid, second.uid] });
      expect(party).toMatchObject({ status: 'SEARCHING', accepted: [first.uid, second.uid] });
    });
  });

  describe('expiry', () => {
    it('lasts MATCHMAKER_TICKET_TTL unless the client asks for less, and refuses more, the past or a malformed time', async () => {
      const [player] = await newPlayers(1, 'short');
      const soon = new Date(Date.now() + 60_000).toISOString();
      const ticket = await queued(player, { numTeams: 2, expiresAt: soon });
      expect(ticket.expiresAt).toBe(soon);
      for (const expiresAt of [new Date(Date.now() + 301_000).toISOString(), new Date(Date.now() - 1000).toISOString(), 'tomorrow']) {
        const refused = await api.put<ErrorResponse>(`/tickets/${ticket.uid}`, { expiresAt }, { token: player.token });
        expectErrorBody(refused, 400, 'VALIDATION_FAILED');
        expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'expiresAt' })]);
      }
      expect((await readTicket(ticket.uid)).expiresAt).toBe(soon);
    });

    it('sets expired tickets INVALID with reason EXPIRED at the next pass, tells their people, and never matches them', async () => {
      const [player, partner] = await newPlayers(2, 'expiring');
      const lapsing = await queued(player, { numTeams: 2, expiresAt: new Date(Date.now() + 800).toISOString() });
      await new Promise((resolve) => setTimeout(resolve, 900));
      const waiting = await queued(partner);

      expect(await matchmaker.runOnce()).toBe(0);

      expect(await readTicket(lapsing.uid)).toMatchObject({ status: 'INVALID', reason: 'EXPIRED', version: 1, sessionUid: null });
      expect((await ticketEvents(player, lapsing.uid)).pop()).toMatchObject({ status: 'INVALID', reason: 'EXPIRED' });
      expect((await readTicket(waiting.uid)).status).toBe('SEARCHING');
      expectErrorBody(await api.put(`/tickets/${lapsing.uid}`, { status: 'SEARCHING' }, { token: player.token }), 409, 'CONFLICT');
    });

    it('keeps every answer true when acceptances race the expiry: no write is lost', async () => {
      const hosts = await newPlayers(6, 'deadline-host');
      const friends = await newPlayers(6, 'deadline-friend');
      // Shapes of their own (2 to 7 teams of 2): no two parties can be matched, so they race the expiry alone.
      const parties = await Promise.all(
        hosts.map((host, index) => queued(host, { numTeams: 2 + index, teamSize: 2, users: [host.uid, friends[index].uid] })),
      );
      // The deadline is set once every party is queued, by the database's clock (the one the sweep reads):
      // however long queueing took on a loaded machine, the acceptances below arrive at the deadline.
      const { rows } = await api.database.query<{ deadline: Date }>(
        `UPDATE tickets SET "expiresAt" = now() + interval '300 milliseconds' WHERE uid = ANY($1::uuid[]) RETURNING "expiresAt" AS deadline`,
        [parties.map((party) => party.uid)],
      );
      const deadline = rows[0].deadline.getTime();
      const at = (moment: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, moment - Date.now())));

      // The acceptances spread from just before the deadline to just after it, the sweeps at it and after.
      const [answers] = await Promise.all([
        Promise.all(
          parties.map(async (party, index) => {
            await at(deadline - 30 + 10 * index);
            return api.post<TicketBody>(`/tickets/${party.uid}/accept`, undefined, { token: friends[index].token });
          }),
        ),
        at(deadline).then(() => matchmaker.runOnce()),
        at(deadline + 20).then(() => matchmaker.runOnce()),
      ]);

      for (const [index, answer] of answers.entries()) {
        const stored = await readTicket(parties[index].uid);
        expect([200, 409]).toContain(answer.status);
        if (answer.status === 200) {
          // Accepted before the deadline: then either still searching, or expired by a later write.
          expect(answer.body.status).toBe('SEARCHING');
          expect([
            { status: 'SEARCHING', version: answer.body.version },
            { status: 'INVALID', version: answer.body.version + 1 },
          ]).toContainEqual({ status: stored.status, version: stored.version });
        } else {
          // Refused at or after the deadline: the acceptance wrote nothing. The ticket is expired already,
          // or waits for the next sweep (the sweeps above ran before the deadline, or passed it over
          // while this acceptance held it locked).
          expect(stored.accepted).toEqual([hosts[index].uid]);
          expect([
            { status: 'INITIALIZING', reason: null, version: parties[index].version },
            { status: 'INVALID', reason: 'EXPIRED', version: parties[index].version + 1 },
          ]).toContainEqual({ status: stored.status, reason: stored.reason, version: stored.version });
        }
      }
      // The next sweep after the deadline ends every one of them.
      while (Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, deadline + 1 - Date.now()));
      await matchmaker.runOnce();
      for (const party of parties) expect(await readTicket(party.uid)).toMatchObject({ status: 'INVALID', reason: 'EXPIRED' });
    });
  });

  describe('queue insight', () => {
    it('shows everyone the depth by shape, and admins the waits and the rate of matches', async () => {
      const players = await newPlayers(5, 'stats');
      for (const player of players.slice(0, 4)) await queued(player, { numTeams: 2, teamSize: 1 });
      await queued(players[4], { numTeams: 3, teamSize: 1 });
      const before = await api.get<QueueStatsBody>('/tickets/stats', { token: players[0].token });
      expect(before.status).toBe(200);
      expect(before.body).toEqual({
        searching: [
          { numTeams: 2, teamSize: 1, tickets: 4 },
          { numTeams: 3, teamSize: 1, tickets: 1 },
        ],
      });

      const matchesSoFar = async () =>
        Number(/matchmaker_matches_total\{kind="session"\} (\d+)/.exec((await api.get<string>('/metrics')).body)?.[1] ?? 0);
      const waitsSoFar = async () =>
        Number(/matchmaker_ticket_wait_seconds_count (\d+)/.exec((await api.get<string>('/metrics')).body)?.[1] ?? 0);
      const [matchesBefore, waitsBefore] = [await matchesSoFar(), await waitsSoFar()];
      expect(await matchmaker.runOnce()).toBe(2);

      const forPlayer = await api.get<QueueStatsBody>('/tickets/stats', { token: players[0].token });
      expect(forPlayer.body).toEqual({ searching: [{ numTeams: 3, teamSize: 1, tickets: 1 }] });
      const forAdmin = await api.get<QueueStatsBody>('/tickets/stats', { token: admin.token });
      expect(forAdmin.body).toEqual({
        searching: [{ numTeams: 3, teamSize: 1, tickets: 1 }],
        windowSeconds: 600,
        matchedTickets: 4,
        medianWaitSeconds: expect.any(Number),
        p95WaitSeconds: expect.any(Number),
        matchesPerMinute: 0.2,
      });
      expect(forAdmin.body.p95WaitSeconds).toBeGreaterThanOrEqual(forAdmin.body.medianWaitSeconds!);
      expect(forAdmin.body.medianWaitSeconds).toBeGreaterThanOrEqual(0);
      expect(forAdmin.body.p95WaitSeconds).toBeLessThan(60);

      const metrics = await api.get<string>('/metrics');
      expect(metrics.body).toMatch(/matchmaker_searching_tickets\{numTeams="3",teamSize="1"\} 1/);
      expect(await matchesSoFar()).toBe(matchesBefore + 2);
      expect(await waitsSoFar()).toBe(waitsBefore + 4);
    });
  });
});

describe('several queue places per player (MATCHMAKER_TICKETS_PER_USER=2)', () => {
  let api: TestApp;
  let matchmaker: MatchmakerService;

  beforeAll(async () => {
    api = await TestApp.start({ MATCHMAKER_TICKETS_PER_USER: '2' });
    matchmaker = api.app.get(MatchmakerService);
  });

  afterAll(async () => {
    await api.close();
  });

  it('allows that many, and ends the others when one of them is matched: nobody sits in two sessions', async () => {
    const [player, rival] = await Promise.all([api.signInPlayer('two-queues'), api.signInPlayer('two-queues-rival')]);
    const duel = (await api.post<TicketBody>('/tickets', { numTeams: 2 }, { token: player.token })).body;
    const trio = (await api.post<TicketBody>('/tickets', { numTeams: 3 }, { token: player.token })).body;
    expectErrorBody(await api.post('/tickets', { numTeams: 4 }, { token: player.token }), 409, 'ALREADY_QUEUED');
    await api.post('/tickets', { numTeams: 2 }, { token: rival.token });

    expect(await matchmaker.runOnce()).toBe(1);

    const read = async (uid: string) => (await api.get<TicketBody>(`/tickets/${uid}`, { token: player.token })).body;
    expect(await read(duel.uid)).toMatchObject({ status: 'MATCH_FOUND' });
    expect(await read(trio.uid)).toMatchObject({ status: 'INVALID', reason: 'MATCHED_ELSEWHERE', version: 1 });
  });
});
