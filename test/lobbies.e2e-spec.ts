import { MatchmakerService } from '../src/matchmaker/matchmaker.service.js';
import { SessionLivenessService } from '../src/sessions/session-liveness.service.js';
import type { SessionBody, SessionChangeBody, TicketBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';
import { RealtimeClient } from './support/realtime-client.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

type Player = SignedInPlayer;

const TIMEOUT_SECONDS = 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Lobbies that hold up on launch day: members show presence (heartbeat, or an open socket) and silent
 * ones are removed; sessions that ask for backfill get their open seats filled by the matchmaker,
 * racing joins safely. Sweeps and passes run when a test says so.
 */
describe('lobbies', () => {
  let api: TestApp;
  let admin: Player;
  let liveness: SessionLivenessService;
  let matchmaker: MatchmakerService;

  beforeAll(async () => {
    api = await TestApp.start({ SESSION_MEMBER_TIMEOUT: String(TIMEOUT_SECONDS) }, { listen: true });
    admin = await api.signInPlayer('admin');
    liveness = api.app.get(SessionLivenessService);
    matchmaker = api.app.get(MatchmakerService);
  });

  afterAll(async () => {
    await api.close();
  });

  // Sweeps and passes see every session: each test starts from none.
  beforeEach(async () => {
    expect((await api.delete('/tickets', { token: admin.token })).status).toBe(200);
    expect((await api.delete('/sessions', { token: admin.token })).status).toBe(200);
  });

  const newPlayers = (count: number, label?: string): Promise<Player[]> => api.signInPlayers(count, label);

  const host = (player: Player, body: Record<string, unknown>) => api.created<SessionBody>('/sessions', body, player.token);

  async function join(player: Player, session: SessionBody): Promise<void> {
    expect((await api.get(`/sessions/${session.uid}/join`, { token: player.token })).status).toBe(200);
  }

  const readSession = (uid: string) => api.found<SessionBody>(`/sessions/${uid}`, admin.token);

  const heartbeat = (player: Player, session: SessionBody) =>
    api.post(`/sessions/${session.uid}/heartbeat`, undefined, { token: player.token });

  describe('presence', () => {
    it('takes a heartbeat from a member with 204, and refuses everyone else', async () => {
      const [owner, member, passerby, outsider] = await newPlayers(4, 'beat');
      const open = await host(owner, { numTeams: 2, teamSize: 2 });
      const closed = await host(owner, { numTeams: 2, teamSize: 2, visibility: 'INVITE_ONLY' });
      await join(member, open);

      const beat = await heartbeat(member, open);
      expect(beat.status).toBe(204);
      expect(beat.body).toBe('');
      expect((await heartbeat(owner, closed)).status).toBe(204);
      expectErrorBody(await heartbeat(passerby, open), 409, 'CONFLICT');
      expectErrorBody(await heartbeat(outsider, closed), 404, 'NOT_FOUND');
      expectErrorBody(await api.post('/sessions/not-a-uuid/heartbeat', undefined, { token: member.token }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.post(`/sessions/${open.uid}/heartbeat`), 401, 'UNAUTHORIZED');
      // A heartbeat changes the session in nothing a client reads.
      expect((await readSession(open.uid)).version).toBe(1);
    });

    it('removes members silent for SESSION_MEMBER_TIMEOUT, keeps those who showed presence, and hands the host on', async () => {
      const [owner, talker, quiet] = await newPlayers(3, 'silence');
      const lobby = await host(owner, { numTeams: 1, teamSize: 4 });
      await join(talker, lobby);
      await join(quiet, lobby);

      await sleep(TIMEOUT_SECONDS * 1000 + 200);
      expect((await heartbeat(talker, lobby)).status).toBe(204);
      expect(await liveness.sweepOnce()).toBe(2);

      const after = await readSession(lobby.uid);
      expect(after).toMatchObject({ users: [talker.uid], hostUid: talker.uid, status: 'WAITING_FOR_PLAYERS', version: 3 });
      expect(after.teams).toEqual([{ id: 0, members: [talker.uid] }]);
      // The removed learn it from the session's push, and from their next heartbeat.
      const inbox = await api.get<Array<{ type: string; data: SessionChangeBody }>>('/notifications', { token: quiet.token });
      expect(inbox.body.filter((event) => event.type === 'session.updated').pop()?.data).toMatchObject({
        uid: lobby.uid,
        version: 3,
        hostUid: talker.uid,
        left: [owner.uid, quiet.uid],
        joined: [],
      });
      expectErrorBody(await heartbeat(quiet, lobby), 409, 'CONFLICT');
      // A second sweep right away finds nobody silent.
      expect(await liveness.sweepOnce()).toBe(0);
    });

    it('ends a lobby everyone fell silent in, but not a game in progress', async () => {
      const [first, second] = await newPlayers(2, 'emptied');
      const lobby = await host(first, { numTeams: 1, teamSize: 2 });
      const game = await host(second, { numTeams: 1, teamSize: 2, status: 'IN_PROGRESS' });

      await sleep(TIMEOUT_SECONDS * 1000 + 200);
      await liveness.sweepOnce();

      expect(await readSession(lobby.uid)).toMatchObject({ users: [], status: 'ENDED' });
      expect(await readSession(game.uid)).toMatchObject({ users: [], status: 'IN_PROGRESS' });
      expectErrorBody(await heartbeat(first, lobby), 409, 'CONFLICT');
    });

    it('counts an open realtime socket as presence', async () => {
      const [owner, connected] = await newPlayers(2, 'socket');
      const lobby = await host(owner, { numTeams: 1, teamSize: 2 });
      await join(connected, lobby);
      const socket = await RealtimeClient.connect(api.baseUrl, { token: connected.token });
      try {
        await sleep(TIMEOUT_SECONDS * 1000 + 200);
        await liveness.sweepOnce();
        expect(await readSession(lobby.uid)).toMatchObject({ users: [connected.uid], hostUid: connected.uid });
      } finally {
        await socket.close();
      }
    });

    it('removes each silent member once when sweeps of several instances run at once', async () => {
      const players = await newPlayers(6, 'swept');
      const lobbies = await Promise.all(players.slice(0, 3).map((owner) => host(owner, { numTeams: 1, teamSize: 2, status: 'IDLE' })));
      await Promise.all(lobbies.map((lobby, index) => join(players[index + 3], lobby)));

      await sleep(TIMEOUT_SECONDS * 1000 + 200);
      const removed = await Promise.all([liveness.sweepOnce(), liveness.sweepOnce(), liveness.sweepOnce()]);

      expect(removed.reduce((sum, count) => sum + count, 0)).toBe(6);
      for (const lobby of lobbies) expect(await readSession(lobby.uid)).toMatchObject({ users: [], version: 2, status: 'IDLE' });
    });

    it('ends a lobby its last member leaves', async () => {
      const [owner] = await newPlayers(1, 'last-out');
      const lobby = await host(owner, { numTeams: 1, teamSize: 2 });
      expect((await api.get(`/sessions/${lobby.uid}/leave`, { token: owner.token })).status).toBe(200);
      expect(await readSession(lobby.uid)).toMatchObject({ users: [], status: 'ENDED' });
    });
  });

  describe('backfill', () => {
    const queue = async (player: Player, body: Record<string, unknown>) => {
      const response = await api.post<TicketBody>('/tickets', body, { token: player.token });
      expect(response.status).toBe(201);
      return response.body;
    };

    it('fills the open seats of a session that asked for it, teams respected, before making new sessions', async () => {
      const [owner, mate, partyHost, partyFriend, solo] = await newPlayers(5, 'backfill');
      const session = await host(owner, { numTeams: 2, teamSize: 2, backfill: true, status: 'IN_PROGRESS' });
      await join(mate, session);
      const party = await queue(admin, { numTeams: 2, teamSize: 2, users: [partyHost.uid, partyFriend.uid] });
      const single = await queue(solo, { numTeams: 2, teamSize: 2 });
      const sessionsBefore = (await api.database.query<{ count: number }>('SELECT count(*)::int AS count FROM sessions')).rows[0].count;

      expect(await matchmaker.runOnce()).toBe(1);

      const filled = await readSession(session.uid);
      expect(filled.users).toEqual([owner.uid, mate.uid, partyHost.uid, partyFriend.uid]);
      expect(filled.teams).toEqual([
        { id: 0, members: [owner.uid, mate.uid] },
        { id: 1, members: [partyHost.uid, partyFriend.uid] },
      ]);
      expect((await api.get<TicketBody>(`/tickets/${party.uid}`, { token: admin.token })).body).toMatchObject({
        status: 'MATCH_FOUND',
        sessionUid: session.uid,
      });
      // The session was full: the solo ticket waits, and no session was made.
      expect((await api.get<TicketBody>(`/tickets/${single.uid}`, { token: admin.token })).body.status).toBe('SEARCHING');
      expect((await api.database.query<{ count: number }>('SELECT count(*)::int AS count FROM sessions')).rows[0].count).toBe(
        sessionsBefore,
      );
      const inbox = await api.get<Array<{ type: string; data: SessionChangeBody }>>('/notifications', { token: owner.token });
      expect(inbox.body.filter((event) => event.type === 'session.updated').pop()?.data).toMatchObject({
        uid: session.uid,
        joined: [partyHost.uid, partyFriend.uid],
        changed: ['teams', 'users'],
      });
    });

    it('leaves alone sessions that did not ask, and those that ended or idle', async () => {
      const [a, b, c, seekerOne, seekerTwo] = await newPlayers(5, 'no-backfill');
      const plain = await host(a, { numTeams: 2, teamSize: 1 });
      const ended = await host(b, { numTeams: 2, teamSize: 1, backfill: true, status: 'ENDED' });
      const idle = await host(c, { numTeams: 2, teamSize: 1, backfill: true, status: 'IDLE' });
      await queue(seekerOne, { numTeams: 2, teamSize: 1 });
      await queue(seekerTwo, { numTeams: 2, teamSize: 1 });

      expect(await matchmaker.runOnce()).toBe(1);

      for (const session of [plain, ended, idle]) expect((await readSession(session.uid)).users).toHaveLength(1);
      const made = await api.get<SessionBody[]>(`/sessions?hostUid=${seekerOne.uid}`, { token: admin.token });
      expect(made.body.map((session) => session.users)).toEqual([[seekerOne.uid, seekerTwo.uid]]);
    });

    it('takes only tickets that suit the players already matched into the session', async () => {
      const [first, second, outsider, fitting] = await newPlayers(4, 'suits');
      const skill = (value: number) => ({
        statistics: [{ name: 'skill', value }],
        criteria: [{ name: 'skill', minValue: value - 100, maxValue: value + 100 }],
      });
      await queue(first, { numTeams: 2, teamSize: 2, ...skill(1000) });
      await queue(second, { numTeams: 2, teamSize: 2, ...skill(1050) });
      await queue(admin, {
        numTeams: 2,
        teamSize: 2,
        users: [(await newPlayers(1, 'filler'))[0].uid, (await newPlayers(1, 'filler'))[0].uid],
        ...skill(1020),
      });
      expect(await matchmaker.runOnce()).toBe(1);
      const [made] = (await api.get<SessionBody[]>(`/sessions?hostUid=${first.uid}`, { token: admin.token })).body;
      // A player drops out; the host opens the seat to backfill.
      expect(
        (
          await api.put(
            `/sessions/${made.uid}`,
            { backfill: true, users: made.users.filter((user) => user !== second.uid) },
            { token: first.token },
          )
        ).status,
      ).toBe(200);
      const far = await queue(outsider, { numTeams: 2, teamSize: 2, ...skill(3000) });
      const near = await queue(fitting, { numTeams: 2, teamSize: 2, ...skill(990) });

      expect(await matchmaker.runOnce()).toBe(1);

      expect((await readSession(made.uid)).users).toContain(fitting.uid);
      expect((await api.get<TicketBody>(`/tickets/${near.uid}`, { token: admin.token })).body.sessionUid).toBe(made.uid);
      expect((await api.get<TicketBody>(`/tickets/${far.uid}`, { token: admin.token })).body.status).toBe('SEARCHING');
    });

    it('races manual joins for the last seat safely: one of them gets it, the session is never overfilled', async () => {
      const rounds = 8;
      const outcomes: string[] = [];
      for (let round = 0; round < rounds; round++) {
        const [owner, joiner, seeker] = await newPlayers(3, `last-seat-${round}`);
        const session = await host(owner, { numTeams: 1, teamSize: 2, backfill: true });
        const ticket = await queue(seeker, { numTeams: 1, teamSize: 2 });

        const [joined] = await Promise.all([api.get(`/sessions/${session.uid}/join`, { token: joiner.token }), matchmaker.runOnce()]);

        const after = await readSession(session.uid);
        const placed = (await api.get<TicketBody>(`/tickets/${ticket.uid}`, { token: admin.token })).body;
        expect(after.users).toHaveLength(2);
        if (joined.status === 200) {
          expect(after.users).toEqual([owner.uid, joiner.uid]);
          expect(placed.status).toBe('SEARCHING');
          outcomes.push('join');
        } else {
          expectErrorBody(joined, 409, 'CONFLICT');
          expect(after.users).toEqual([owner.uid, seeker.uid]);
          expect(placed).toMatchObject({ status: 'MATCH_FOUND', sessionUid: session.uid });
          outcomes.push('backfill');
        }
        await api.delete(`/tickets/${ticket.uid}`, { token: admin.token });
      }
      expect(outcomes).toHaveLength(rounds);
    });
  });
});
