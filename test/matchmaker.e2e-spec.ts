import { MatchmakerService } from '../src/matchmaker/matchmaker.service.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';
import type { SessionBody, TicketBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';

type Player = SignedInPlayer;

const sorted = (values: string[]): string[] => [...values].sort();

describe('matchmaker', () => {
  let api: TestApp;
  let admin: Player;
  let matchmaker: MatchmakerService;

  beforeAll(async () => {
    // A small batch, so that concurrent passes each claim a different slice of the queue instead of
    // the first one taking every ticket: that is what several busy instances do.
    api = await TestApp.start({ MATCHMAKER_BATCH: '8' });
    admin = await api.signInPlayer('admin');
    matchmaker = api.app.get(MatchmakerService);
  });

  afterAll(async () => {
    await api.close();
  });

  // Every test starts from an empty queue: a pass matches every waiting ticket in the database.
  beforeEach(async () => {
    expect((await api.delete('/tickets', { token: admin.token })).status).toBe(200);
    expect((await api.delete('/sessions', { token: admin.token })).status).toBe(200);
  });

  const newPlayers = (count: number, label?: string): Promise<Player[]> => api.signInPlayers(count, label);

  async function queue(player: Player, body: Record<string, unknown>): Promise<TicketBody> {
    const response = await api.post<TicketBody>('/tickets', body, { token: player.token });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe(body.status ?? 'SEARCHING');
    return response.body;
  }

  const readTicket = (uid: string) => api.found<TicketBody>(`/tickets/${uid}`, admin.token);

  const readSession = (uid: string) => api.found<SessionBody>(`/sessions/${uid}`, admin.token);

  /** The ticket is still waiting as it was created, untouched by the matchmaker. */
  async function expectUnmatched(ticket: TicketBody): Promise<void> {
    expect(await readTicket(ticket.uid)).toMatchObject({ status: ticket.status, sessionUid: null, version: ticket.version });
  }

  /** The tickets were matched together, once, into one session; returns that session. */
  async function expectMatchedTogether(tickets: TicketBody[]): Promise<SessionBody> {
    const after = await Promise.all(tickets.map((ticket) => readTicket(ticket.uid)));
    const sessionUid = after[0].sessionUid;
    expect(sessionUid).toEqual(expect.any(String));
    after.forEach((ticket, index) => {
      expect(ticket).toMatchObject({ status: 'MATCH_FOUND', sessionUid, version: tickets[index].version + 1 });
    });
    return readSession(sessionUid!);
  }

  it('puts four single players wanting 2 teams of 2 into one LOCKED session, and each player finds it from their ticket', async () => {
    const players = await newPlayers(4, 'solo');
    const tickets: TicketBody[] = [];
    for (const player of players) tickets.push(await queue(player, { numTeams: 2, teamSize: 2 }));

    expect(await matchmaker.runOnce()).toBe(1);

    expect(await api.countRows('sessions')).toBe(1);
    const sessionUids = new Set<string>();
    for (const [index, player] of players.entries()) {
      const polled = await api.get<TicketBody>(`/tickets/${tickets[index].uid}`, { token: player.token });
      expect(polled.status).toBe(200);
      expect(polled.body).toMatchObject({ status: 'MATCH_FOUND', sessionUid: expect.any(String), users: [player.uid], version: 1 });
      sessionUids.add(polled.body.sessionUid!);
    }
    expect(sessionUids.size).toBe(1);
    const [sessionUid] = [...sessionUids];

    for (const player of players) {
      const seen = await api.get<SessionBody>(`/sessions/${sessionUid}`, { token: player.token });
      expect(seen.status).toBe(200);
      expect(seen.body).toMatchObject({ uid: sessionUid, visibility: 'LOCKED', numTeams: 2, teamSize: 2 });
      expect(sorted(seen.body.users)).toEqual(sorted(players.map((each) => each.uid)));
      expect(seen.body.teams).toHaveLength(2);
      expect(seen.body.teams.map((team) => team.id)).toEqual([0, 1]);
      for (const team of seen.body.teams) expect(team.members).toHaveLength(2);
      expect(sorted(seen.body.teams.flatMap((team) => team.members))).toEqual(sorted(seen.body.users));
      expect(players.map((each) => each.uid)).toContain(seen.body.hostUid);
    }

    const [outsider] = await newPlayers(1, 'outsider');
    expectErrorBody(await api.get(`/sessions/${sessionUid}`, { token: outsider.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.get(`/sessions/${sessionUid}/join`, { token: outsider.token }), 403, 'FORBIDDEN');
  });

  it('never matches a ticket twice: a second pass creates nothing', async () => {
    const players = await newPlayers(2, 'once');
    const tickets = [await queue(players[0], { numTeams: 2 }), await queue(players[1], { numTeams: 2 })];
    expect(await matchmaker.runOnce()).toBe(1);
    const session = await expectMatchedTogether(tickets);

    expect(await matchmaker.runOnce()).toBe(0);

    expect(await api.countRows('sessions')).toBe(1);
    expect(await expectMatchedTogether(tickets)).toEqual(session);
  });

  it('keeps a party of two, queued by one of them, together on one team', async () => {
    const [leader, friend, third, fourth] = await newPlayers(4, 'party');
    const solo = await queue(third, { numTeams: 2, teamSize: 2 });
    const invitation = await api.post<TicketBody>(
      '/tickets',
      { numTeams: 2, teamSize: 2, users: [leader.uid, friend.uid] },
      { token: leader.token },
    );
    // A party waits for everyone it names to accept.
    expect(invitation.body).toMatchObject({ status: 'INITIALIZING', accepted: [leader.uid], numUsers: 2 });
    const accepted = await api.post<TicketBody>(`/tickets/${invitation.body.uid}/accept`, undefined, { token: friend.token });
    expect(accepted.status).toBe(200);
    const party = accepted.body;
    expect(party).toMatchObject({ status: 'SEARCHING', accepted: [leader.uid, friend.uid] });
    const other = await queue(fourth, { numTeams: 2, teamSize: 2 });

    expect(await matchmaker.runOnce()).toBe(1);

    const session = await expectMatchedTogether([solo, party, other]);
    expect(sorted(session.users)).toEqual(sorted([leader.uid, friend.uid, third.uid, fourth.uid]));
    expect(sorted(session.teams.map((team) => sorted(team.members).join()))).toEqual(
      sorted([sorted([leader.uid, friend.uid]).join(), sorted([third.uid, fourth.uid]).join()]),
    );
    const polled = await api.get<TicketBody>(`/tickets/${party.uid}`, { token: friend.token });
    expect(polled.status).toBe(200);
    expect(polled.body.sessionUid).toBe(session.uid);
  });

  it('keeps a party an admin queued together on one team', async () => {
    const [first, second, third, fourth] = await newPlayers(4, 'admin-party');
    const solo = await queue(third, { numTeams: 2, teamSize: 2 });
    const party = await queue(admin, { numTeams: 2, teamSize: 2, users: [first.uid, second.uid] });
    const other = await queue(fourth, { numTeams: 2, teamSize: 2 });

    expect(await matchmaker.runOnce()).toBe(1);

    const session = await expectMatchedTogether([solo, party, other]);
    const partyTeam = session.teams.find((team) => team.members.includes(first.uid));
    expect(sorted(partyTeam!.members)).toEqual(sorted([first.uid, second.uid]));
    expect(sorted(session.users)).toEqual(sorted([first.uid, second.uid, third.uid, fourth.uid]));
  });

  it("leaves a ticket outside the others' skill range searching while the compatible ones are matched", async () => {
    const [expert, picky, first, second] = await newPlayers(4, 'skill');
    const range = [{ name: 'skill', minValue: 1000, maxValue: 1400 }];
    // The oldest two cannot play with anyone: the expert's skill is out of everyone's range, and the
    // picky player's own range (both ways) rules the others out.
    const outOfRange = await queue(expert, { numTeams: 2, criteria: range, statistics: [{ name: 'skill', value: 2000 }] });
    const tooPicky = await queue(picky, {
      numTeams: 2,
      criteria: [{ name: 'skill', minValue: 1500, maxValue: 1700 }],
      statistics: [{ name: 'skill', value: 1100 }],
    });
    const early = await queue(first, { numTeams: 2, criteria: range, statistics: [{ name: 'skill', value: 1200 }] });

    expect(await matchmaker.runOnce()).toBe(0);
    await expectUnmatched(outOfRange);
    await expectUnmatched(tooPicky);
    await expectUnmatched(early);

    const late = await queue(second, { numTeams: 2, criteria: range, statistics: [{ name: 'skill', value: 1300 }] });
    expect(await matchmaker.runOnce()).toBe(1);

    const session = await expectMatchedTogether([early, late]);
    expect(sorted(session.users)).toEqual(sorted([first.uid, second.uid]));
    await expectUnmatched(outOfRange);
    await expectUnmatched(tooPicky);
  });

  it('OR-s criteria of one name and AND-s criteria of different names', async () => {
    const [anchor, middling, foreign, partner] = await newPlayers(4, 'criteria');
    const criteria = [
      { name: 'skill', minValue: 0, maxValue: 100 },
      { name: 'skill', minValue: 900, maxValue: 1000 },
      { name: 'region', minValue: 'eu', maxValue: 'eu' },
    ];
    const first = await queue(anchor, {
      numTeams: 2,
      criteria,
      statistics: [
        { name: 'skill', value: 50 },
        { name: 'region', value: 'eu' },
      ],
    });
    const betweenRanges = await queue(middling, {
      numTeams: 2,
      criteria,
      statistics: [
        { name: 'skill', value: 500 },
        { name: 'region', value: 'eu' },
      ],
    });
    const otherRegion = await queue(foreign, {
      numTeams: 2,
      criteria,
      statistics: [
        { name: 'skill', value: 950 },
        { name: 'region', value: 'us' },
      ],
    });
    expect(await matchmaker.runOnce()).toBe(0);

    const upperRange = await queue(partner, {
      numTeams: 2,
      criteria,
      statistics: [
        { name: 'skill', value: 950 },
        { name: 'region', value: 'eu' },
      ],
    });
    expect(await matchmaker.runOnce()).toBe(1);

    const session = await expectMatchedTogether([first, upperRange]);
    expect(sorted(session.users)).toEqual(sorted([anchor.uid, partner.uid]));
    await expectUnmatched(betweenRanges);
    await expectUnmatched(otherRegion);
  });

  it('never puts tickets of different numTeams or teamSize in one session', async () => {
    const players = await newPlayers(5, 'shape');
    const twoOfOne = await queue(players[0], { numTeams: 2, teamSize: 1 });
    const threeOfOne = await queue(players[1], { numTeams: 3, teamSize: 1 });
    const twoOfTwo = await queue(players[2], { numTeams: 2, teamSize: 2 });
    const oneOfTwo = await queue(players[3], { numTeams: 1, teamSize: 2 });

    expect(await matchmaker.runOnce()).toBe(0);
    expect(await api.countRows('sessions')).toBe(0);
    for (const ticket of [twoOfOne, threeOfOne, twoOfTwo, oneOfTwo]) await expectUnmatched(ticket);

    const partner = await queue(players[4], { numTeams: 2, teamSize: 1 });
    expect(await matchmaker.runOnce()).toBe(1);

    const session = await expectMatchedTogether([twoOfOne, partner]);
    expect(session).toMatchObject({ numTeams: 2, teamSize: 1 });
    expect(sorted(session.users)).toEqual(sorted([players[0].uid, players[4].uid]));
    for (const ticket of [threeOfOne, twoOfTwo, oneOfTwo]) await expectUnmatched(ticket);
  });

  it('creates no session while there are not enough tickets to fill one', async () => {
    const players = await newPlayers(3, 'short');
    const tickets: TicketBody[] = [];
    for (const player of players) tickets.push(await queue(player, { numTeams: 2, teamSize: 2 }));

    expect(await matchmaker.runOnce()).toBe(0);

    expect(await api.countRows('sessions')).toBe(0);
    for (const ticket of tickets) await expectUnmatched(ticket);
  });

  it('does not match INITIALIZING tickets until they are set to SEARCHING', async () => {
    const [first, second] = await newPlayers(2, 'initializing');
    const one = await queue(first, { numTeams: 2, status: 'INITIALIZING' });
    const two = await queue(second, { numTeams: 2, status: 'INITIALIZING' });

    expect(await matchmaker.runOnce()).toBe(0);
    await expectUnmatched(one);
    await expectUnmatched(two);

    const ready = await api.put<TicketBody>(`/tickets/${one.uid}`, { status: 'SEARCHING' }, { token: first.token });
    expect(ready.status).toBe(200);
    expect(await matchmaker.runOnce()).toBe(0);
    expect(await readTicket(one.uid)).toMatchObject({ status: 'SEARCHING', sessionUid: null });

    const alsoReady = await api.put<TicketBody>(`/tickets/${two.uid}`, { status: 'SEARCHING' }, { token: second.token });
    expect(alsoReady.status).toBe(200);
    expect(await matchmaker.runOnce()).toBe(1);
    const after = await Promise.all([readTicket(one.uid), readTicket(two.uid)]);
    expect(after.map((ticket) => ticket.status)).toEqual(['MATCH_FOUND', 'MATCH_FOUND']);
    expect(after[0].sessionUid).toEqual(expect.any(String));
    expect(after[1].sessionUid).toBe(after[0].sessionUid);
  });

  it('pairs the oldest ticket with the closest skill, not the next in line', async () => {
    const [novice, veteran, apprentice] = await newPlayers(3, 'fitness');
    const oldest = await queue(novice, { numTeams: 2, statistics: [{ name: 'skill', value: 100 }] });
    const far = await queue(veteran, { numTeams: 2, statistics: [{ name: 'skill', value: 900 }] });
    const close = await queue(apprentice, { numTeams: 2, statistics: [{ name: 'skill', value: 150 }] });

    expect(await matchmaker.runOnce()).toBe(1);

    const session = await expectMatchedTogether([oldest, close]);
    expect(sorted(session.users)).toEqual(sorted([novice.uid, apprentice.uid]));
    await expectUnmatched(far);
  });

  it('matches 40 players into exactly 10 sessions when four passes run at once, never a ticket or player twice', async () => {
    const players = await newPlayers(40, 'crowd');
    const tickets = await Promise.all(players.map((player) => queue(player, { numTeams: 2, teamSize: 2 })));
    expect(new Set(tickets.map((ticket) => ticket.uid)).size).toBe(40);

    let created = 0;
    let waiting = 40;
    for (let round = 0; round < 20 && waiting > 0; round += 1) {
      const passes = await Promise.all([matchmaker.runOnce(), matchmaker.runOnce(), matchmaker.runOnce(), matchmaker.runOnce()]);
      created += passes.reduce((sum, count) => sum + count, 0);
      const { rows } = await api.database.query<{ count: number }>(`SELECT count(*)::int AS count FROM tickets WHERE status = 'SEARCHING'`);
      waiting = rows[0].count;
    }
    expect(waiting).toBe(0);
    expect(created).toBe(10);

    const { rows: ticketRows } = await api.database.query<{
      uid: string;
      status: string;
      sessionUid: string | null;
      users: string[];
      version: number;
    }>('SELECT uid, status, "sessionUid", users, version FROM tickets');
    const { rows: sessionRows } = await api.database.query<{
      uid: string;
      visibility: string;
      numTeams: number;
      teamSize: number;
      users: string[];
      teams: Array<{ id: number; members: string[] }>;
    }>('SELECT uid, visibility, "numTeams", "teamSize", users, teams FROM sessions');

    expect(ticketRows).toHaveLength(40);
    expect(sessionRows).toHaveLength(10);
    for (const ticket of ticketRows) {
      expect(ticket.status).toBe('MATCH_FOUND');
      expect(ticket.sessionUid).toEqual(expect.any(String));
      // One write by the matchmaker: a ticket matched twice would be at version 2.
      expect(ticket.version).toBe(1);
    }

    const sessionByUid = new Map(sessionRows.map((session) => [session.uid, session]));
    for (const session of sessionRows) {
      expect(session.visibility).toBe('LOCKED');
      expect(session.users).toHaveLength(4);
      expect(new Set(session.users).size).toBe(4);
      expect(session.users.length).toBeLessThanOrEqual(session.numTeams * session.teamSize);
      expect(session.teams.map((team) => team.members.length)).toEqual([2, 2]);
      expect(sorted(session.teams.flatMap((team) => team.members))).toEqual(sorted(session.users));
    }
    const everyone = sessionRows.flatMap((session) => session.users);
    expect(everyone).toHaveLength(40);
    expect(sorted(everyone)).toEqual(sorted(players.map((player) => player.uid)));
    for (const ticket of ticketRows) {
      const session = sessionByUid.get(ticket.sessionUid!);
      expect(session).toBeDefined();
      expect(session!.users).toEqual(expect.arrayContaining(ticket.users));
    }
    const ticketsPerSession = new Map<string, number>();
    for (const ticket of ticketRows) ticketsPerSession.set(ticket.sessionUid!, (ticketsPerSession.get(ticket.sessionUid!) ?? 0) + 1);
    expect([...ticketsPerSession.values()]).toEqual(Array(10).fill(4));

    const { rows: overfilled } = await api.database.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM sessions WHERE cardinality(users) > "numTeams" * "teamSize"',
    );
    expect(overfilled[0].count).toBe(0);
  });
});
