import { randomUUID } from 'node:crypto';
import { type SignedInPlayer, TestApp, type TestResponse } from './support/test-app.js';
import type { BodyOrError, CountBody, ErrorResponse, SessionBody } from './support/api-types.js';
import { expectErrorBody, expectValidationError, ISO_MILLISECONDS, UUID_V4 } from './support/expectations.js';

type Player = SignedInPlayer;

const PASSWORD = 'open sesame 7731';

describe('sessions', () => {
  let api: TestApp;
  let admin: Player;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signInPlayer('admin');
  });

  afterAll(async () => {
    await api.close();
  });

  const createSession = (player: Player, body: Record<string, unknown>) => api.created<SessionBody>('/sessions', body, player.token);

  const readSession = (uid: string) => api.found<SessionBody>(`/sessions/${uid}`, admin.token);

  async function join(player: Player, uid: string, query = ''): Promise<TestResponse<BodyOrError<SessionBody>>> {
    return api.get(`/sessions/${uid}/join${query}`, { token: player.token });
  }

  /** Every member sits in exactly one team, and the teams hold nobody else. */
  function expectSeatedOnce(session: SessionBody): void {
    const seated = session.teams.flatMap((team) => team.members);
    expect(new Set(seated).size).toBe(seated.length);
    expect([...seated].sort()).toEqual([...session.users].sort());
    expect(new Set(session.users).size).toBe(session.users.length);
    for (const team of session.teams) expect(team.members.length).toBeLessThanOrEqual(session.teamSize);
  }

  describe('the operations of the interface', () => {
    it('creates a session with 201: the creator hosts it, sits in team 0 of numTeams empty teams, version 0', async () => {
      const host = await api.newPlayer('creator');

      const response = await api.post<SessionBody>('/sessions', { numTeams: 3, teamSize: 2 }, { token: host.token });

      expect(response.status).toBe(201);
      expect(response.headers.etag).toBe('"0"');
      expect(response.body).toEqual({
        uid: expect.stringMatching(UUID_V4),
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
        version: 0,
        status: 'WAITING_FOR_PLAYERS',
        visibility: 'PUBLIC',
        numTeams: 3,
        teamSize: 2,
        teams: [
          { id: 0, members: [host.uid] },
          { id: 1, members: [] },
          { id: 2, members: [] },
        ],
        users: [host.uid],
        invited: [],
        backfill: false,
        hostUid: host.uid,
        serverUid: null,
      });
      expect(await readSession(response.body.uid)).toEqual(response.body);
    });

    it('keeps the status, visibility, invitations and teams a creator chooses', async () => {
      const host = await api.newPlayer('creator');
      const guest = (await api.newPlayer('guest')).uid;

      const session = await createSession(host, {
        numTeams: 2,
        teamSize: 2,
        status: 'IDLE',
        visibility: 'INVITE_ONLY',
        invited: [guest],
        teams: [
          { id: 0, members: [] },
          { id: 1, members: [host.uid] },
        ],
      });

      expect(session).toMatchObject({
        status: 'IDLE',
        visibility: 'INVITE_ONLY',
        invited: [guest],
        teams: [
          { id: 0, members: [] },
          { id: 1, members: [host.uid] },
        ],
        users: [host.uid],
        hostUid: host.uid,
      });
      expectSeatedOnce(session);
    });

    it('seats nobody without consent: users named in users or teams who have not joined are invited instead', async () => {
      const host = await api.newPlayer('creator');
      const [friend, stranger] = await Promise.all([api.newPlayer('friend'), api.newPlayer('stranger')]);

      const session = await createSession(host, {
        numTeams: 2,
        teamSize: 2,
        users: [host.uid, friend.uid],
        teams: [
          { id: 0, members: [] },
          { id: 1, members: [stranger.uid] },
        ],
      });

      expect(session).toMatchObject({
        users: [host.uid],
        teams: [
          { id: 0, members: [host.uid] },
          { id: 1, members: [] },
        ],
        invited: [friend.uid, stranger.uid],
      });
      // Later updates cannot seat them either; once they join, the host may move them.
      const update = await api.put<SessionBody>(`/sessions/${session.uid}`, { users: [host.uid, stranger.uid] }, { token: host.token });
      expect(update.status).toBe(200);
      expect(update.body.users).toEqual([host.uid]);
      expect(update.body.invited).toEqual([friend.uid, stranger.uid]);
      expect((await join(friend, session.uid)).status).toBe(200);
      const moved = await api.put<SessionBody>(
        `/sessions/${session.uid}`,
        {
          teams: [
            { id: 0, members: [host.uid] },
            { id: 1, members: [friend.uid] },
          ],
        },
        { token: host.token },
      );
      expect(moved.status).toBe(200);
      expect(moved.body.teams).toEqual([
        { id: 0, members: [host.uid] },
        { id: 1, members: [friend.uid] },
      ]);
    });

    it('lets an admin seat existing users directly (a game server placing players), never unknown uids', async () => {
      const [alice, bob] = await Promise.all([api.newPlayer('seated'), api.newPlayer('seated')]);

      const session = await createSession(admin, { numTeams: 2, teamSize: 1, users: [alice.uid, bob.uid] });

      expect(session.users).toEqual([alice.uid, bob.uid]);
      expectSeatedOnce(session);
      const unknown = await api.post<ErrorResponse>(
        '/sessions',
        { numTeams: 2, teamSize: 1, users: [alice.uid, randomUUID()] },
        { token: admin.token },
      );
      expectValidationError(unknown, 'users');
      const crowded = await api.post<ErrorResponse>(
        '/sessions',
        { numTeams: 1, teamSize: 1, users: [alice.uid, bob.uid] },
        { token: admin.token },
      );
      expectValidationError(crowded, 'users');
    });

    it('lists sessions as a bare JSON array that holds the new session', async () => {
      const host = await api.newPlayer('lister');
      const session = await createSession(host, { numTeams: 1, teamSize: 4 });

      const response = await api.get<SessionBody[]>('/sessions?limit=1000', { token: host.token });

      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      expect(response.body).toContainEqual(session);
    });

    it('counts sessions as { count }, agreeing with the list', async () => {
      const host = await api.newPlayer('counter');
      await createSession(host, { numTeams: 1, teamSize: 2 });
      await createSession(host, { numTeams: 1, teamSize: 2 });

      const count = await api.get<CountBody>(`/sessions/count?hostUid=${host.uid}`, { token: host.token });
      const all = await api.get<CountBody>('/sessions/count', { token: host.token });
      const list = await api.get<SessionBody[]>('/sessions?limit=1000', { token: host.token });

      expect(count.status).toBe(200);
      expect(count.body).toEqual({ count: 2 });
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ count: list.body.length });
    });

    it('finds a session by id with its ETag', async () => {
      const host = await api.newPlayer('finder');
      const session = await createSession(host, { numTeams: 2, teamSize: 1 });

      const response = await api.get<SessionBody>(`/sessions/${session.uid}`, { token: host.token });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"0"');
      expect(response.body).toEqual(session);
    });

    it('merges an update: absent fields are kept, the version goes up by one and the ETag follows', async () => {
      const host = await api.newPlayer('updater');
      const guest = (await api.newPlayer('guest')).uid;
      const session = await createSession(host, { numTeams: 2, teamSize: 2, invited: [guest] });

      const response = await api.put<SessionBody>(`/sessions/${session.uid}`, { status: 'IN_PROGRESS' }, { token: host.token });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"1"');
      expect(response.body).toEqual({
        ...session,
        status: 'IN_PROGRESS',
        version: 1,
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
      });
      const found = await api.get<SessionBody>(`/sessions/${session.uid}`, { token: host.token });
      expect(found.headers.etag).toBe('"1"');
      expect(found.body).toEqual(response.body);
    });

    it('accepts a session read back whole, with a change, as an update', async () => {
      const host = await api.newPlayer('updater');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, invited: [(await api.newPlayer('guest')).uid] });
      const read = await readSession(session.uid);

      const response = await api.put<SessionBody>(`/sessions/${session.uid}`, { ...read, visibility: 'LOCKED' }, { token: host.token });

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...session,
        visibility: 'LOCKED',
        version: 1,
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
      });
    });

    it('re-seats the members when an update changes the shape, and removes those the users leave out', async () => {
      const host = await api.newPlayer('updater');
      const [first, second] = await Promise.all([api.newPlayer('member'), api.newPlayer('member')]);
      const session = await createSession(host, { numTeams: 1, teamSize: 3 });
      for (const member of [first, second]) expect((await join(member, session.uid)).status).toBe(200);

      const reshaped = await api.put<SessionBody>(`/sessions/${session.uid}`, { numTeams: 3, teamSize: 1 }, { token: host.token });

      expect(reshaped.status).toBe(200);
      expect(reshaped.body.users).toEqual([host.uid, first.uid, second.uid]);
      expect(reshaped.body.teams).toEqual([
        { id: 0, members: [host.uid] },
        { id: 1, members: [first.uid] },
        { id: 2, members: [second.uid] },
      ]);
      expect(reshaped.body.version).toBe(3);

      const kicked = await api.put<SessionBody>(`/sessions/${session.uid}`, { users: [host.uid, second.uid] }, { token: host.token });
      expect(kicked.status).toBe(200);
      expect(kicked.body.users).toEqual([host.uid, second.uid]);
      expectSeatedOnce(kicked.body);
    });

    it('deletes a session with 200 and no body; it is then 404', async () => {
      const host = await api.newPlayer('deleter');
      const session = await createSession(host, { numTeams: 1, teamSize: 1 });

      const response = await api.delete(`/sessions/${session.uid}`, { token: host.token });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expectErrorBody(await api.get(`/sessions/${session.uid}`, { token: admin.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(`/sessions/${session.uid}`, { token: admin.token }), 404, 'NOT_FOUND');
    });

    it('lets a player join with 200, returning the session with them in it', async () => {
      const host = await api.newPlayer('host');
      const joiner = await api.newPlayer('joiner');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });

      const response = await join(joiner, session.uid);

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"1"');
      expect(response.body).toEqual({
        ...session,
        users: [host.uid, joiner.uid],
        teams: [
          { id: 0, members: [host.uid, joiner.uid] },
          { id: 1, members: [] },
        ],
        version: 1,
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
      });
      expect(await readSession(session.uid)).toEqual(response.body);
    });

    it('lets a member leave with 200 and no body; they are gone from users and teams', async () => {
      const host = await api.newPlayer('host');
      const leaver = await api.newPlayer('leaver');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });
      expect((await join(leaver, session.uid)).status).toBe(200);

      const response = await api.get(`/sessions/${session.uid}/leave`, { token: leaver.token });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      const after = await readSession(session.uid);
      expect(after.users).toEqual([host.uid]);
      expect(after.teams).toEqual([
        { id: 0, members: [host.uid] },
        { id: 1, members: [] },
      ]);
      expect(after.hostUid).toBe(host.uid);
      expect(after.version).toBe(2);
    });

    it('refuses truncate to a player with 403 and keeps every session', async () => {
      const player = await api.newPlayer('vandal');
      const session = await createSession(player, { numTeams: 1, teamSize: 1 });
      const before = await api.countRows('sessions');

      const response = await api.delete('/sessions', { token: player.token });

      expectErrorBody(response, 403, 'FORBIDDEN');
      expect(await api.countRows('sessions')).toBe(before);
      expect(await readSession(session.uid)).toEqual(session);
    });

    it('lets an admin truncate with 200 and no body: no session is left', async () => {
      const player = await api.newPlayer('truncated');
      const session = await createSession(player, { numTeams: 1, teamSize: 1 });

      const response = await api.delete('/sessions', { token: admin.token });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expect(await api.countRows('sessions')).toBe(0);
      const count = await api.get<CountBody>('/sessions/count', { token: admin.token });
      expect(count.body).toEqual({ count: 0 });
      expectErrorBody(await api.get(`/sessions/${session.uid}`, { token: admin.token }), 404, 'NOT_FOUND');
    });

    it('answers 401 on the session routes without a token', async () => {
      const host = await api.newPlayer('host');
      const session = await createSession(host, { numTeams: 1, teamSize: 2 });

      expectErrorBody(await api.get('/sessions'), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/sessions', { numTeams: 1, teamSize: 1 }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.get(`/sessions/${session.uid}/join`), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.delete(`/sessions/${session.uid}`), 401, 'UNAUTHORIZED');
      expect(await readSession(session.uid)).toEqual(session);
    });
  });

  describe('validation', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['no numTeams', { teamSize: 2 }, 'numTeams'],
      ['no teamSize', { numTeams: 2 }, 'teamSize'],
      ['numTeams 0', { numTeams: 0, teamSize: 2 }, 'numTeams'],
      ['teamSize 0', { numTeams: 2, teamSize: 0 }, 'teamSize'],
      ['numTeams sent as a string', { numTeams: '2', teamSize: 2 }, 'numTeams'],
      ['an unknown status', { numTeams: 2, teamSize: 2, status: 'FINISHED' }, 'status'],
      ['an unknown visibility', { numTeams: 2, teamSize: 2, visibility: 'SECRET' }, 'visibility'],
      ['fewer teams than numTeams', { numTeams: 2, teamSize: 2, teams: [{ id: 0, members: [] }] }, 'teams'],
      [
        'more teams than numTeams',
        {
          numTeams: 1,
          teamSize: 2,
          teams: [
            { id: 0, members: [] },
            { id: 1, members: [] },
          ],
        },
        'teams',
      ],
      [
        'two teams with the same id',
        {
          numTeams: 2,
          teamSize: 2,
          teams: [
            { id: 0, members: [] },
            { id: 0, members: [] },
          ],
        },
        'teams',
      ],
      [
        'a team with more members than teamSize',
        {
          numTeams: 2,
          teamSize: 1,
          teams: [
            { id: 0, members: [randomUUID(), randomUUID()] },
            { id: 1, members: [] },
          ],
        },
        'teams',
      ],
      ['a user who does not exist', { numTeams: 1, teamSize: 2, users: [randomUUID()] }, 'users'],
      ['an invitation of a user who does not exist', { numTeams: 1, teamSize: 2, invited: [randomUUID()] }, 'invited'],
      ['a capacity above 100 seats', { numTeams: 11, teamSize: 10 }, 'teamSize'],
      ['more than 100 invitations', { numTeams: 1, teamSize: 2, invited: Array.from({ length: 101 }, () => randomUUID()) }, 'invited'],
      ['a user that is not a uuid', { numTeams: 1, teamSize: 2, users: ['bob'] }, 'users'],
      ['an unknown field', { numTeams: 1, teamSize: 2, colour: 'red' }, 'colour'],
    ])('refuses a create with %s: 400 naming the field, nothing created', async (_case, body, field) => {
      const player = await api.newPlayer('validator');
      const before = await api.countRows('sessions');

      const response = await api.post<ErrorResponse>('/sessions', body, { token: player.token });

      expectValidationError(response, field);
      expect(await api.countRows('sessions')).toBe(before);
    });

    it('refuses a create that seats one user in two teams with 400', async () => {
      const player = await api.newPlayer('validator');
      const twin = randomUUID();
      const before = await api.countRows('sessions');

      const response = await api.post<ErrorResponse>(
        '/sessions',
        {
          numTeams: 2,
          teamSize: 2,
          teams: [
            { id: 0, members: [twin] },
            { id: 1, members: [twin] },
          ],
        },
        { token: player.token },
      );

      expectValidationError(response, 'teams');
      expect(await api.countRows('sessions')).toBe(before);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['numTeams 0', { numTeams: 0 }, 'numTeams'],
      ['a null teamSize', { teamSize: null }, 'teamSize'],
      ['an unknown status', { status: 'PAUSED' }, 'status'],
      ['an unknown visibility', { visibility: 'HIDDEN' }, 'visibility'],
      ['teams that do not match numTeams', { teams: [{ id: 0, members: [] }] }, 'teams'],
      [
        'duplicate team ids',
        {
          teams: [
            { id: 1, members: [] },
            { id: 1, members: [] },
          ],
        },
        'teams',
      ],
      ['a user who does not exist', { users: [randomUUID()] }, 'users'],
      ['a capacity above 100 seats', { numTeams: 50, teamSize: 3 }, 'teamSize'],
      ['an unknown field', { mode: 'ranked' }, 'mode'],
      ['a uid that is not the path id', { uid: randomUUID() }, 'uid'],
    ])('refuses an update with %s: 400, the session unchanged', async (_case, body, field) => {
      const host = await api.newPlayer('validator');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });

      const response = await api.put<ErrorResponse>(`/sessions/${session.uid}`, body, { token: host.token });

      expectValidationError(response, field);
      expect(await readSession(session.uid)).toEqual(session);
    });

    it.each(['not-a-uuid', '12345'])('answers 400 to the malformed id %s on find, update, delete, join and leave', async (id) => {
      const player = await api.newPlayer('validator');
      const responses = [
        await api.get<ErrorResponse>(`/sessions/${id}`, { token: player.token }),
        await api.put<ErrorResponse>(`/sessions/${id}`, { status: 'IDLE' }, { token: player.token }),
        await api.delete<ErrorResponse>(`/sessions/${id}`, { token: player.token }),
        await api.get<ErrorResponse>(`/sessions/${id}/join`, { token: player.token }),
        await api.get<ErrorResponse>(`/sessions/${id}/leave`, { token: player.token }),
      ];
      for (const response of responses) expectValidationError(response, 'id');
    });

    it('answers 404 to an unknown id on find, update, delete and leave', async () => {
      const id = randomUUID();
      expectErrorBody(await api.get(`/sessions/${id}`, { token: admin.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.put(`/sessions/${id}`, { status: 'IDLE' }, { token: admin.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(`/sessions/${id}`, { token: admin.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(`/sessions/${id}/leave`, { token: admin.token }), 404, 'NOT_FOUND');
    });
  });

  describe('the join password', () => {
    async function passwordHash(uid: string): Promise<string | null> {
      const { rows } = await api.database.query<{ passwordHash: string | null }>('SELECT "passwordHash" FROM sessions WHERE uid = $1', [
        uid,
      ]);
      return rows[0].passwordHash;
    }

    function expectNoPassword(body: unknown): void {
      expect(body).not.toHaveProperty('password');
      expect(body).not.toHaveProperty('passwordHash');
      expect(JSON.stringify(body)).not.toContain(PASSWORD);
      expect(JSON.stringify(body)).not.toContain('scrypt$');
    }

    it('never returns the password on create, find, list, update or join, and stores only a salted hash', async () => {
      const host = await api.newPlayer('keeper');
      const joiner = await api.newPlayer('joiner');

      const created = await api.post<SessionBody>('/sessions', { numTeams: 2, teamSize: 2, password: PASSWORD }, { token: host.token });
      expect(created.status).toBe(201);
      expectNoPassword(created.body);
      const uid = created.body.uid;

      const stored = await passwordHash(uid);
      expect(stored).toMatch(/^scrypt\$/);
      expect(stored).not.toContain(PASSWORD);

      const found = await api.get<SessionBody>(`/sessions/${uid}`, { token: host.token });
      expect(found.status).toBe(200);
      expectNoPassword(found.body);

      const listed = await api.get<SessionBody[]>('/sessions?limit=1000', { token: host.token });
      expect(listed.status).toBe(200);
      expect(listed.body.map((session) => session.uid)).toContain(uid);
      expectNoPassword(listed.body);

      const updated = await api.put<SessionBody>(`/sessions/${uid}`, { status: 'IDLE', password: PASSWORD }, { token: host.token });
      expect(updated.status).toBe(200);
      expectNoPassword(updated.body);
      const rehashed = await passwordHash(uid);
      expect(rehashed).toMatch(/^scrypt\$/);
      expect(rehashed).not.toContain(PASSWORD);
      // A new salt on every write: the same password never hashes the same way twice.
      expect(rehashed).not.toBe(stored);

      const joined = await join(joiner, uid, `?password=${encodeURIComponent(PASSWORD)}`);
      expect(joined.status).toBe(200);
      expectNoPassword(joined.body);
    });

    it('refuses a wrong password with 403 and leaves the session unchanged', async () => {
      const host = await api.newPlayer('keeper');
      const joiner = await api.newPlayer('joiner');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, password: PASSWORD });

      const response = await join(joiner, session.uid, '?password=guess');

      expectErrorBody(response, 403, 'FORBIDDEN');
      expect(JSON.stringify(response.body)).not.toContain(PASSWORD);
      expect(await readSession(session.uid)).toEqual(session);
    });

    it('refuses a join without the password with 403', async () => {
      const host = await api.newPlayer('keeper');
      const joiner = await api.newPlayer('joiner');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, password: PASSWORD });

      const response = await join(joiner, session.uid);

      expectErrorBody(response, 403, 'FORBIDDEN');
      expect(await readSession(session.uid)).toEqual(session);
    });

    it('lets a player with the right password join with 200', async () => {
      const host = await api.newPlayer('keeper');
      const joiner = await api.newPlayer('joiner');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, password: PASSWORD });

      const response = await join(joiner, session.uid, `?password=${encodeURIComponent(PASSWORD)}`);

      expect(response.status).toBe(200);
      expect(response.body.users).toEqual([host.uid, joiner.uid]);
      expect((await readSession(session.uid)).users).toEqual([host.uid, joiner.uid]);
    });

    it('removes the password when an update sets it to null', async () => {
      const host = await api.newPlayer('keeper');
      const joiner = await api.newPlayer('joiner');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, password: PASSWORD });

      const updated = await api.put<SessionBody>(`/sessions/${session.uid}`, { password: null }, { token: host.token });

      expect(updated.status).toBe(200);
      expect(await passwordHash(session.uid)).toBeNull();
      expect((await join(joiner, session.uid)).status).toBe(200);
    });
  });

  describe('who sees which session', () => {
    let host: Player;
    let member: Player;
    let invited: Player;
    let stranger: Player;
    const sessions: Record<'PUBLIC' | 'INVITE_ONLY' | 'LOCKED', SessionBody> = {} as never;

    beforeAll(async () => {
      host = await api.newPlayer('matrix-host');
      member = await api.newPlayer('matrix-member');
      invited = await api.newPlayer('matrix-invited');
      stranger = await api.newPlayer('matrix-stranger');
      for (const visibility of ['PUBLIC', 'INVITE_ONLY', 'LOCKED'] as const) {
        sessions[visibility] = await createSession(host, {
          numTeams: 2,
          teamSize: 2,
          visibility,
          users: [host.uid, member.uid],
          invited: [invited.uid],
        });
      }
    });

    const viewers = (): Record<string, Player> => ({ host, member, invited, admin });

    it.each(['host', 'member', 'invited', 'admin'])('shows the %s every one of the three sessions in list, count and find', async (who) => {
      const viewer = viewers()[who];
      const everyUid = Object.values(sessions)
        .map((session) => session.uid)
        .sort();

      const list = await api.get<SessionBody[]>(`/sessions?hostUid=${host.uid}&limit=1000`, { token: viewer.token });
      const count = await api.get<CountBody>(`/sessions/count?hostUid=${host.uid}`, { token: viewer.token });

      expect(list.status).toBe(200);
      expect(list.body.map((session) => session.uid).sort()).toEqual(everyUid);
      expect(count.status).toBe(200);
      expect(count.body).toEqual({ count: 3 });
      for (const session of Object.values(sessions)) {
        const found = await api.get<SessionBody>(`/sessions/${session.uid}`, { token: viewer.token });
        expect(found.status).toBe(200);
        expect(found.body).toEqual(session);
      }
    });

    it('shows a stranger only the PUBLIC session, and answers 404 (not 403) for the others', async () => {
      const list = await api.get<SessionBody[]>(`/sessions?hostUid=${host.uid}&limit=1000`, { token: stranger.token });
      const count = await api.get<CountBody>(`/sessions/count?hostUid=${host.uid}`, { token: stranger.token });
      const unfiltered = await api.get<SessionBody[]>('/sessions?limit=1000', { token: stranger.token });

      expect(list.status).toBe(200);
      expect(list.body).toEqual([sessions.PUBLIC]);
      expect(count.body).toEqual({ count: 1 });
      const seen = unfiltered.body.map((session) => session.uid);
      expect(seen).toContain(sessions.PUBLIC.uid);
      expect(seen).not.toContain(sessions.INVITE_ONLY.uid);
      expect(seen).not.toContain(sessions.LOCKED.uid);
      expect(unfiltered.body.every((session) => session.visibility === 'PUBLIC' || session.users.includes(stranger.uid))).toBe(true);

      const found = await api.get<SessionBody>(`/sessions/${sessions.PUBLIC.uid}`, { token: stranger.token });
      expect(found.status).toBe(200);
      expect(found.body).toEqual(sessions.PUBLIC);
      expectErrorBody(await api.get(`/sessions/${sessions.INVITE_ONLY.uid}`, { token: stranger.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(`/sessions/${sessions.LOCKED.uid}`, { token: stranger.token }), 404, 'NOT_FOUND');
    });

    it('refuses a member updating or deleting the session with 403, and changes nothing', async () => {
      for (const session of Object.values(sessions)) {
        expectErrorBody(await api.put(`/sessions/${session.uid}`, { status: 'ENDED' }, { token: member.token }), 403, 'FORBIDDEN');
        expectErrorBody(await api.delete(`/sessions/${session.uid}`, { token: member.token }), 403, 'FORBIDDEN');
        expectErrorBody(await api.put(`/sessions/${session.uid}`, { status: 'ENDED' }, { token: invited.token }), 403, 'FORBIDDEN');
        expect(await readSession(session.uid)).toEqual(session);
      }
    });

    it('refuses a stranger with 403 on the PUBLIC session and 404 on the ones hidden from them', async () => {
      const expectations = [
        [sessions.PUBLIC, 403, 'FORBIDDEN'],
        [sessions.INVITE_ONLY, 404, 'NOT_FOUND'],
        [sessions.LOCKED, 404, 'NOT_FOUND'],
      ] as const;
      for (const [session, status, code] of expectations) {
        expectErrorBody(await api.put(`/sessions/${session.uid}`, { status: 'ENDED' }, { token: stranger.token }), status, code);
        expectErrorBody(await api.delete(`/sessions/${session.uid}`, { token: stranger.token }), status, code);
        expect(await readSession(session.uid)).toEqual(session);
      }
    });

    it('lets an admin update and delete a session they do not host', async () => {
      const owner = await api.newPlayer('owner');
      const session = await createSession(owner, { numTeams: 2, teamSize: 2, visibility: 'INVITE_ONLY' });

      const updated = await api.put<SessionBody>(`/sessions/${session.uid}`, { status: 'IN_PROGRESS' }, { token: admin.token });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ status: 'IN_PROGRESS', hostUid: owner.uid, version: 1 });

      const deleted = await api.delete(`/sessions/${session.uid}`, { token: admin.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toBe('');
      expectErrorBody(await api.get(`/sessions/${session.uid}`, { token: owner.token }), 404, 'NOT_FOUND');
    });
  });

  describe('joining', () => {
    it('is idempotent for a member: 200, same version, no duplicate', async () => {
      const host = await api.newPlayer('host');
      const member = await api.newPlayer('member');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });
      const joined = await join(member, session.uid);
      expect(joined.status).toBe(200);

      const again = await join(member, session.uid);
      const hostAgain = await join(host, session.uid);

      expect(again.status).toBe(200);
      expect(again.body).toEqual(joined.body);
      expect(hostAgain.status).toBe(200);
      expect(hostAgain.body.version).toBe(joined.body.version);
      const after = await readSession(session.uid);
      expect(after).toEqual(joined.body);
      expect(after.users).toEqual([host.uid, member.uid]);
      expectSeatedOnce(after);
    });

    it('seats each joiner on the first team with room', async () => {
      const host = await api.newPlayer('host');
      const [first, second, third] = [await api.newPlayer('joiner'), await api.newPlayer('joiner'), await api.newPlayer('joiner')];
      const session = await createSession(host, { numTeams: 3, teamSize: 2 });

      expect((await join(first, session.uid)).body.teams[0].members).toEqual([host.uid, first.uid]);
      expect((await join(second, session.uid)).body.teams[1].members).toEqual([second.uid]);
      const last = await join(third, session.uid);

      expect(last.status).toBe(200);
      expect(last.body.teams).toEqual([
        { id: 0, members: [host.uid, first.uid] },
        { id: 1, members: [second.uid, third.uid] },
        { id: 2, members: [] },
      ]);
      expect(last.body.users).toEqual([host.uid, first.uid, second.uid, third.uid]);
    });

    it('fills a gap a leaver left in an earlier team', async () => {
      const host = await api.newPlayer('host');
      const [leaver, stayer, latecomer] = [await api.newPlayer('leaver'), await api.newPlayer('stayer'), await api.newPlayer('late')];
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });
      await join(leaver, session.uid);
      await join(stayer, session.uid);
      expect((await api.get(`/sessions/${session.uid}/leave`, { token: leaver.token })).status).toBe(200);

      const response = await join(latecomer, session.uid);

      expect(response.status).toBe(200);
      expect(response.body.teams).toEqual([
        { id: 0, members: [host.uid, latecomer.uid] },
        { id: 1, members: [stayer.uid] },
      ]);
    });

    it('refuses a stranger joining an INVITE_ONLY session with 403, and lets the invited user join with 200', async () => {
      const host = await api.newPlayer('host');
      const guest = await api.newPlayer('guest');
      const stranger = await api.newPlayer('stranger');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, visibility: 'INVITE_ONLY', invited: [guest.uid] });

      expectErrorBody(await join(stranger, session.uid), 403, 'FORBIDDEN');
      expect(await readSession(session.uid)).toEqual(session);

      const response = await join(guest, session.uid);
      expect(response.status).toBe(200);
      expect(response.body.users).toEqual([host.uid, guest.uid]);
      expect(response.body.teams[0].members).toEqual([host.uid, guest.uid]);
    });

    it('lets an invited user into a password-protected session without the password', async () => {
      const host = await api.newPlayer('host');
      const guest = await api.newPlayer('guest');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, invited: [guest.uid], password: PASSWORD });

      const response = await join(guest, session.uid);

      expect(response.status).toBe(200);
      expect(response.body.users).toEqual([host.uid, guest.uid]);
    });

    it('refuses anyone joining a LOCKED session with 403, even when invited', async () => {
      const host = await api.newPlayer('host');
      const guest = await api.newPlayer('guest');
      const stranger = await api.newPlayer('stranger');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, visibility: 'LOCKED', invited: [guest.uid] });

      expectErrorBody(await join(stranger, session.uid), 403, 'FORBIDDEN');
      expectErrorBody(await join(guest, session.uid), 403, 'FORBIDDEN');
      expect(await readSession(session.uid)).toEqual(session);
    });

    it('refuses joining an ENDED session with 409', async () => {
      const host = await api.newPlayer('host');
      const joiner = await api.newPlayer('joiner');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, status: 'ENDED' });

      expectErrorBody(await join(joiner, session.uid), 409, 'CONFLICT');
      expect(await readSession(session.uid)).toEqual(session);
    });

    it('refuses joining a full session with 409', async () => {
      const host = await api.newPlayer('host');
      const second = await api.newPlayer('second');
      const third = await api.newPlayer('third');
      const session = await createSession(host, { numTeams: 2, teamSize: 1 });
      const full = await join(second, session.uid);
      expect(full.status).toBe(200);

      expectErrorBody(await join(third, session.uid), 409, 'CONFLICT');
      expect(await readSession(session.uid)).toEqual(full.body);
    });

    it('answers 404 to joining an unknown session and 400 to a malformed id', async () => {
      const joiner = await api.newPlayer('joiner');

      expectErrorBody(await join(joiner, randomUUID()), 404, 'NOT_FOUND');
      expectValidationError(await join(joiner, 'not-a-uuid'), 'id');
    });

    it('never overfills the last seats: of 10 players racing for 3 seats, exactly 3 get in', async () => {
      const host = await api.newPlayer('race-host');
      const racers = await Promise.all(Array.from({ length: 10 }, () => api.newPlayer('racer')));
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });

      const responses = await Promise.all(racers.map((racer) => join(racer, session.uid)));

      const winners = racers.filter((_racer, index) => responses[index].status === 200).map((racer) => racer.uid);
      const losers = responses.filter((response) => response.status !== 200);
      expect(winners).toHaveLength(3);
      expect(losers).toHaveLength(7);
      for (const response of losers) expectErrorBody(response, 409, 'CONFLICT');
      const after = await readSession(session.uid);
      expect(after.users).toHaveLength(4);
      expect([...after.users].sort()).toEqual([host.uid, ...winners].sort());
      expectSeatedOnce(after);
      expect(after.teams.map((team) => team.members.length)).toEqual([2, 2]);
      expect(after.version).toBe(3);
    });
  });

  describe('leaving', () => {
    it('is idempotent: leaving twice answers 200 both times', async () => {
      const host = await api.newPlayer('host');
      const leaver = await api.newPlayer('leaver');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });
      await join(leaver, session.uid);

      const first = await api.get(`/sessions/${session.uid}/leave`, { token: leaver.token });
      const afterFirst = await readSession(session.uid);
      const second = await api.get(`/sessions/${session.uid}/leave`, { token: leaver.token });

      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toBe('');
      expect(afterFirst.users).toEqual([host.uid]);
      expect(await readSession(session.uid)).toEqual(afterFirst);
    });

    it('answers 200 and changes nothing when a non-member leaves a PUBLIC session', async () => {
      const host = await api.newPlayer('host');
      const passerby = await api.newPlayer('passerby');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });

      const response = await api.get(`/sessions/${session.uid}/leave`, { token: passerby.token });

      expect(response.status).toBe(200);
      expect(await readSession(session.uid)).toEqual(session);
    });

    it('hands the session to the next member when the host leaves', async () => {
      const host = await api.newPlayer('host');
      const heir = await api.newPlayer('heir');
      const third = await api.newPlayer('third');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });
      await join(heir, session.uid);
      await join(third, session.uid);

      const response = await api.get(`/sessions/${session.uid}/leave`, { token: host.token });

      expect(response.status).toBe(200);
      const after = await readSession(session.uid);
      expect(after.hostUid).toBe(heir.uid);
      expect(after.users).toEqual([heir.uid, third.uid]);
      expectSeatedOnce(after);
      // The new host may now change the session; the old one may not.
      const updated = await api.put<SessionBody>(`/sessions/${session.uid}`, { status: 'IN_PROGRESS' }, { token: heir.token });
      expect(updated.status).toBe(200);
      expectErrorBody(await api.put(`/sessions/${session.uid}`, { status: 'IDLE' }, { token: host.token }), 403, 'FORBIDDEN');
    });

    it('answers 404 to a stranger leaving a session hidden from them', async () => {
      const host = await api.newPlayer('host');
      const stranger = await api.newPlayer('stranger');
      const session = await createSession(host, { numTeams: 2, teamSize: 2, visibility: 'INVITE_ONLY' });

      expectErrorBody(await api.get(`/sessions/${session.uid}/leave`, { token: stranger.token }), 404, 'NOT_FOUND');
      expect(await readSession(session.uid)).toEqual(session);
    });
  });

  describe('versions', () => {
    it('refuses an update stating a stale version with 409 VERSION_CONFLICT and changes nothing', async () => {
      const host = await api.newPlayer('host');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });
      const moved = await api.put<SessionBody>(`/sessions/${session.uid}`, { status: 'IDLE', version: 0 }, { token: host.token });
      expect(moved.status).toBe(200);
      expect(moved.body.version).toBe(1);

      const stale = await api.put<ErrorResponse>(`/sessions/${session.uid}`, { status: 'ENDED', version: 0 }, { token: host.token });

      expectErrorBody(stale, 409, 'VERSION_CONFLICT');
      expect(stale.body.currentVersion).toBe(1);
      expect(await readSession(session.uid)).toEqual(moved.body);
    });

    it('refuses a stale If-Match with 409 VERSION_CONFLICT', async () => {
      const host = await api.newPlayer('host');
      const joiner = await api.newPlayer('joiner');
      const session = await createSession(host, { numTeams: 2, teamSize: 2 });
      const joined = await join(joiner, session.uid);

      const stale = await api.put<ErrorResponse>(
        `/sessions/${session.uid}`,
        { status: 'ENDED' },
        { token: host.token, headers: { 'if-match': '"0"' } },
      );

      expectErrorBody(stale, 409, 'VERSION_CONFLICT');
      expect(await readSession(session.uid)).toEqual(joined.body);
    });
  });
});
