import { randomUUID } from 'node:crypto';
import { MatchmakerService } from '../src/matchmaker/matchmaker.service.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';
import type { CountBody, ErrorResponse, TicketBody } from './support/api-types.js';
import { expectErrorBody, expectValidationError, ISO_MILLISECONDS, UUID_V4 } from './support/expectations.js';

type Player = SignedInPlayer;

describe('tickets', () => {
  let api: TestApp;
  let admin: Player;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signInPlayer('admin');
  });

  afterAll(async () => {
    await api.close();
  });

  const createTicket = (player: Player, body: Record<string, unknown>) => api.created<TicketBody>('/tickets', body, player.token);

  const readTicket = (uid: string) => api.found<TicketBody>(`/tickets/${uid}`, admin.token);

  describe('the operations of the interface', () => {
    it('creates a ticket with 201: SEARCHING, the creator alone, teamSize 1, no session yet, version 0', async () => {
      const player = await api.newPlayer('seeker');

      const response = await api.post<TicketBody>('/tickets', { numTeams: 2 }, { token: player.token });

      expect(response.status).toBe(201);
      expect(response.headers.etag).toBe('"0"');
      expect(response.body).toEqual({
        uid: expect.stringMatching(UUID_V4),
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
        version: 0,
        status: 'SEARCHING',
        criteria: [],
        statistics: [],
        numTeams: 2,
        teamSize: 1,
        numUsers: 1,
        users: [player.uid],
        accepted: [player.uid],
        hostUid: player.uid,
        sessionUid: null,
        expiresAt: expect.stringMatching(ISO_MILLISECONDS),
        reason: null,
      });
      // The default lifetime: MATCHMAKER_TICKET_TTL (300 s) from its creation.
      expect(Date.parse(response.body.expiresAt) - Date.parse(response.body.dateCreated)).toBeGreaterThanOrEqual(299_000);
      expect(Date.parse(response.body.expiresAt) - Date.parse(response.body.dateCreated)).toBeLessThanOrEqual(301_000);
      expect(await readTicket(response.body.uid)).toEqual(response.body);
    });

    it('stores a party ticket with its criteria, statistics and status', async () => {
      const player = await api.newPlayer('leader');
      const friend = await api.newPlayer('friend');
      const body = {
        numTeams: 2,
        teamSize: 3,
        users: [player.uid, friend.uid],
        numUsers: 2,
        status: 'INITIALIZING',
        criteria: [
          { name: 'skill', minValue: 1000, maxValue: 1400 },
          { name: 'region', minValue: 'eu', maxValue: 'eu' },
          { name: 'crossplay', minValue: true },
        ],
        statistics: [
          { name: 'skill', value: 1200 },
          { name: 'region', value: 'eu' },
          { name: 'crossplay', value: true },
        ],
      };

      const created = await createTicket(player, body);

      expect(created).toMatchObject({ ...body, hostUid: player.uid, sessionUid: null, version: 0 });
      expect(await readTicket(created.uid)).toEqual(created);
    });

    it('ignores read-only fields sent on create: the service sets hostUid and sessionUid', async () => {
      const player = await api.newPlayer('sneaky');

      const created = await createTicket(player, {
        numTeams: 2,
        uid: randomUUID(),
        version: 9,
        hostUid: admin.uid,
        sessionUid: randomUUID(),
      });

      expect(created).toMatchObject({ hostUid: player.uid, sessionUid: null, version: 0, status: 'SEARCHING' });
    });

    it("lists tickets as a bare JSON array holding the caller's ticket", async () => {
      const player = await api.newPlayer('lister');
      const ticket = await createTicket(player, { numTeams: 3 });

      const response = await api.get<TicketBody[]>('/tickets', { token: player.token });

      expect(response.status).toBe(200);
      expect(response.body).toEqual([ticket]);
    });

    it('counts tickets as { count }, agreeing with the list', async () => {
      const player = await api.newPlayer('counter');
      // One queue place per player: the first ticket has ended, so that the second may queue.
      await createTicket(player, { numTeams: 3, status: 'INVALID' });
      await createTicket(player, { numTeams: 4 });

      const count = await api.get<CountBody>('/tickets/count', { token: player.token });
      const filtered = await api.get<CountBody>('/tickets/count?numTeams=4', { token: player.token });

      expect(count.status).toBe(200);
      expect(count.body).toEqual({ count: 2 });
      expect(filtered.body).toEqual({ count: 1 });
      const all = await api.get<CountBody>('/tickets/count', { token: admin.token });
      expect(all.body).toEqual({ count: await api.countRows('tickets') });
    });

    it('finds a ticket by id with its ETag', async () => {
      const player = await api.newPlayer('finder');
      const ticket = await createTicket(player, { numTeams: 3 });

      const response = await api.get<TicketBody>(`/tickets/${ticket.uid}`, { token: player.token });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"0"');
      expect(response.body).toEqual(ticket);
    });

    it('merges an update: absent fields are kept, the version goes up by one and the ETag follows', async () => {
      const player = await api.newPlayer('updater');
      const ticket = await createTicket(player, {
        numTeams: 3,
        criteria: [{ name: 'skill', minValue: 1000 }],
        statistics: [{ name: 'skill', value: 1200 }],
      });

      const response = await api.put<TicketBody>(
        `/tickets/${ticket.uid}`,
        { statistics: [{ name: 'skill', value: 1250 }] },
        { token: player.token },
      );

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"1"');
      expect(response.body).toEqual({
        ...ticket,
        statistics: [{ name: 'skill', value: 1250 }],
        version: 1,
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
      });
      expect(await readTicket(ticket.uid)).toEqual(response.body);
    });

    it('keeps numUsers in step with users on update', async () => {
      const player = await api.newPlayer('updater');
      const friend = await api.newPlayer('friend');
      const ticket = await createTicket(player, { numTeams: 3, teamSize: 2 });

      const response = await api.put<TicketBody>(`/tickets/${ticket.uid}`, { users: [player.uid, friend.uid] }, { token: player.token });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ users: [player.uid, friend.uid], numUsers: 2, version: 1 });
      expect((await readTicket(ticket.uid)).numUsers).toBe(2);
    });

    it('lets the host put a ticket on hold and back to SEARCHING', async () => {
      const player = await api.newPlayer('updater');
      const ticket = await createTicket(player, { numTeams: 3 });

      const held = await api.put<TicketBody>(`/tickets/${ticket.uid}`, { status: 'INITIALIZING' }, { token: player.token });
      const resumed = await api.put<TicketBody>(`/tickets/${ticket.uid}`, { status: 'SEARCHING', version: 1 }, { token: player.token });

      expect(held.status).toBe(200);
      expect(held.body.status).toBe('INITIALIZING');
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ status: 'SEARCHING', version: 2 });
    });

    it('refuses an update stating a stale version with 409 VERSION_CONFLICT', async () => {
      const player = await api.newPlayer('updater');
      const ticket = await createTicket(player, { numTeams: 3 });
      const moved = await api.put<TicketBody>(`/tickets/${ticket.uid}`, { numTeams: 4 }, { token: player.token });
      expect(moved.status).toBe(200);

      const stale = await api.put<ErrorResponse>(`/tickets/${ticket.uid}`, { numTeams: 5, version: 0 }, { token: player.token });

      expectErrorBody(stale, 409, 'VERSION_CONFLICT');
      expect(await readTicket(ticket.uid)).toEqual(moved.body);
    });

    it('deletes a ticket with 200 and no body; it is then 404', async () => {
      const player = await api.newPlayer('quitter');
      const ticket = await createTicket(player, { numTeams: 3 });

      const response = await api.delete(`/tickets/${ticket.uid}`, { token: player.token });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expectErrorBody(await api.get(`/tickets/${ticket.uid}`, { token: admin.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(`/tickets/${ticket.uid}`, { token: player.token }), 404, 'NOT_FOUND');
    });

    it('refuses truncate to a player with 403 and keeps every ticket', async () => {
      const player = await api.newPlayer('vandal');
      const ticket = await createTicket(player, { numTeams: 3 });
      const before = await api.countRows('tickets');

      const response = await api.delete('/tickets', { token: player.token });

      expectErrorBody(response, 403, 'FORBIDDEN');
      expect(await api.countRows('tickets')).toBe(before);
      expect(await readTicket(ticket.uid)).toEqual(ticket);
    });

    it('lets an admin truncate with 200 and no body: no ticket is left', async () => {
      const player = await api.newPlayer('truncated');
      const ticket = await createTicket(player, { numTeams: 3 });

      const response = await api.delete('/tickets', { token: admin.token });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expect(await api.countRows('tickets')).toBe(0);
      expect((await api.get('/tickets/count', { token: admin.token })).body).toEqual({ count: 0 });
      expectErrorBody(await api.get(`/tickets/${ticket.uid}`, { token: player.token }), 404, 'NOT_FOUND');
    });

    it('answers 400 to a malformed id and 404 to an unknown one', async () => {
      const player = await api.newPlayer('prober');

      expectValidationError(await api.get(`/tickets/not-a-uuid`, { token: player.token }), 'id');
      expectValidationError(await api.put(`/tickets/not-a-uuid`, { numTeams: 2 }, { token: player.token }), 'id');
      expectValidationError(await api.delete(`/tickets/not-a-uuid`, { token: player.token }), 'id');
      expectErrorBody(await api.get(`/tickets/${randomUUID()}`, { token: admin.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.put(`/tickets/${randomUUID()}`, { numTeams: 2 }, { token: admin.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(`/tickets/${randomUUID()}`, { token: admin.token }), 404, 'NOT_FOUND');
    });

    it('answers 401 without a token', async () => {
      expectErrorBody(await api.get('/tickets'), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/tickets', { numTeams: 2 }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.get('/tickets/count'), 401, 'UNAUTHORIZED');
    });
  });

  describe('the rules of a ticket', () => {
    it('refuses a client setting MATCH_FOUND with 400, on create and on update', async () => {
      const player = await api.newPlayer('cheater');
      const before = await api.countRows('tickets');

      const created = await api.post<ErrorResponse>('/tickets', { numTeams: 2, status: 'MATCH_FOUND' }, { token: player.token });
      expectValidationError(created, 'status');
      expect(await api.countRows('tickets')).toBe(before);

      const ticket = await createTicket(player, { numTeams: 3 });
      const updated = await api.put<ErrorResponse>(`/tickets/${ticket.uid}`, { status: 'MATCH_FOUND' }, { token: player.token });
      expectValidationError(updated, 'status');
      expect(await readTicket(ticket.uid)).toEqual(ticket);
    });

    it.each<[string, (player: Player) => Record<string, unknown>, string]>([
      ['no numTeams', () => ({ teamSize: 2 }), 'numTeams'],
      ['numTeams 0', () => ({ numTeams: 0 }), 'numTeams'],
      ['teamSize 0', () => ({ numTeams: 2, teamSize: 0 }), 'teamSize'],
      ['an unknown status', () => ({ numTeams: 2, status: 'WAITING' }), 'status'],
      [
        'a criterion without a statistic of its name',
        () => ({ numTeams: 2, criteria: [{ name: 'skill', minValue: 1 }], statistics: [{ name: 'level', value: 3 }] }),
        'criteria.0.name',
      ],
      ['a criterion and no statistics at all', () => ({ numTeams: 2, criteria: [{ name: 'skill', maxValue: 10 }] }), 'criteria.0.name'],
      [
        'two statistics of the same name',
        () => ({
          numTeams: 2,
          statistics: [
            { name: 'skill', value: 1 },
            { name: 'skill', value: 2 },
          ],
        }),
        'statistics',
      ],
      [
        'a criterion whose minValue exceeds its maxValue',
        () => ({
          numTeams: 2,
          criteria: [{ name: 'skill', minValue: 1400, maxValue: 1000 }],
          statistics: [{ name: 'skill', value: 1200 }],
        }),
        'criteria.0',
      ],
      [
        'a statistic whose value is an object',
        () => ({ numTeams: 2, statistics: [{ name: 'skill', value: { rank: 3 } }] }),
        'statistics.0.value',
      ],
      ['a party larger than teamSize', (player) => ({ numTeams: 2, teamSize: 1, users: [player.uid, randomUUID()] }), 'users'],
      ['a party larger than the default teamSize of 1', (player) => ({ numTeams: 2, users: [player.uid, randomUUID()] }), 'users'],
      [
        'numUsers different from the number of users',
        (player) => ({ numTeams: 2, teamSize: 2, users: [player.uid], numUsers: 2 }),
        'numUsers',
      ],
      ['numUsers without users, other than 1', () => ({ numTeams: 2, teamSize: 3, numUsers: 3 }), 'numUsers'],
      ['the same user twice', (player) => ({ numTeams: 2, teamSize: 2, users: [player.uid, player.uid] }), 'users'],
      ['users that leave the player out', () => ({ numTeams: 2, teamSize: 2, users: [randomUUID(), randomUUID()] }), 'users'],
      ['an empty list of users', () => ({ numTeams: 2, users: [] }), 'users'],
      ['an unknown field', () => ({ numTeams: 2, region: 'eu' }), 'region'],
    ])('refuses a create with %s: 400 naming the field, nothing created', async (_case, body, field) => {
      const player = await api.newPlayer('validator');
      const before = await api.countRows('tickets');

      const response = await api.post<ErrorResponse>('/tickets', body(player), { token: player.token });

      expectValidationError(response, field);
      expect(await api.countRows('tickets')).toBe(before);
    });

    it('lets an admin queue a party they are not in', async () => {
      const first = await api.newPlayer('queued');
      const second = await api.newPlayer('queued');

      const ticket = await createTicket(admin, { numTeams: 2, teamSize: 2, users: [first.uid, second.uid] });

      expect(ticket).toMatchObject({ hostUid: admin.uid, users: [first.uid, second.uid], numUsers: 2, status: 'SEARCHING' });
      const seen = await api.get<TicketBody>(`/tickets/${ticket.uid}`, { token: first.token });
      expect(seen.status).toBe(200);
      expect(seen.body).toEqual(ticket);
    });

    it.each<[string, (host: Player, friend: Player) => Record<string, unknown>, string]>([
      ['a criterion without a statistic of its name', () => ({ criteria: [{ name: 'ping', maxValue: 80 }] }), 'criteria.0.name'],
      ['statistics that drop the one a kept criterion needs', () => ({ statistics: [{ name: 'level', value: 7 }] }), 'criteria.0.name'],
      ['a party larger than the stored teamSize', (host, friend) => ({ users: [host.uid, friend.uid, randomUUID()] }), 'users'],
      ['a teamSize smaller than the stored party', () => ({ teamSize: 1 }), 'users'],
      ['numUsers different from the stored users', () => ({ numUsers: 1 }), 'numUsers'],
      ['users that leave the host out', (_host, friend) => ({ users: [friend.uid] }), 'users'],
      ['a null list of users', () => ({ users: null }), 'users'],
      ['an unknown field', () => ({ region: 'eu' }), 'region'],
    ])('refuses an update with %s: 400, the ticket unchanged', async (_case, body, field) => {
      const host = await api.newPlayer('validator');
      const friend = await api.newPlayer('friend');
      const ticket = await createTicket(host, {
        numTeams: 3,
        teamSize: 2,
        users: [host.uid, friend.uid],
        criteria: [{ name: 'skill', minValue: 0 }],
        statistics: [{ name: 'skill', value: 10 }],
      });

      const response = await api.put<ErrorResponse>(`/tickets/${ticket.uid}`, body(host, friend), { token: host.token });

      expectValidationError(response, field);
      expect(await readTicket(ticket.uid)).toEqual(ticket);
    });
  });

  describe('who sees and changes a ticket', () => {
    let host: Player;
    let partner: Player;
    let stranger: Player;
    let ticket: TicketBody;

    beforeAll(async () => {
      host = await api.newPlayer('visible-host');
      partner = await api.newPlayer('visible-partner');
      stranger = await api.newPlayer('visible-stranger');
      ticket = await createTicket(host, { numTeams: 3, teamSize: 2, users: [host.uid, partner.uid] });
    });

    it.each(['host', 'partner'])('shows the ticket to its %s in list, count and find', async (who) => {
      const viewer = who === 'host' ? host : partner;

      const list = await api.get<TicketBody[]>(`/tickets?hostUid=${host.uid}`, { token: viewer.token });
      const count = await api.get<CountBody>(`/tickets/count?hostUid=${host.uid}`, { token: viewer.token });
      const found = await api.get<TicketBody>(`/tickets/${ticket.uid}`, { token: viewer.token });

      expect(list.status).toBe(200);
      expect(list.body).toEqual([ticket]);
      expect(count.body).toEqual({ count: 1 });
      expect(found.status).toBe(200);
      expect(found.body).toEqual(ticket);
    });

    it('hides the ticket from a stranger: 404 on find, absent from list and count', async () => {
      const filtered = await api.get<TicketBody[]>(`/tickets?hostUid=${host.uid}`, { token: stranger.token });
      const list = await api.get<TicketBody[]>('/tickets?limit=1000', { token: stranger.token });
      const count = await api.get<CountBody>('/tickets/count', { token: stranger.token });

      expect(filtered.status).toBe(200);
      expect(filtered.body).toEqual([]);
      expect(list.body).toEqual([]);
      expect(count.body).toEqual({ count: 0 });
      expectErrorBody(await api.get(`/tickets/${ticket.uid}`, { token: stranger.token }), 404, 'NOT_FOUND');
    });

    it('shows an admin every ticket', async () => {
      const list = await api.get<TicketBody[]>('/tickets?limit=1000', { token: admin.token });
      const count = await api.get<CountBody>('/tickets/count', { token: admin.token });

      expect(list.body.map((each) => each.uid)).toContain(ticket.uid);
      expect(count.body).toEqual({ count: await api.countRows('tickets') });
      expect(list.body).toHaveLength(count.body.count);
    });

    it('refuses the partner (not the host) updating or deleting the ticket with 403', async () => {
      expectErrorBody(await api.put(`/tickets/${ticket.uid}`, { numTeams: 4 }, { token: partner.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.delete(`/tickets/${ticket.uid}`, { token: partner.token }), 403, 'FORBIDDEN');
      expect(await readTicket(ticket.uid)).toEqual(ticket);
    });

    it('answers a stranger updating or deleting the ticket with 404', async () => {
      expectErrorBody(await api.put(`/tickets/${ticket.uid}`, { numTeams: 4 }, { token: stranger.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(`/tickets/${ticket.uid}`, { token: stranger.token }), 404, 'NOT_FOUND');
      expect(await readTicket(ticket.uid)).toEqual(ticket);
    });

    it('lets an admin update and delete a ticket they did not create', async () => {
      const owner = await api.newPlayer('owner');
      const owned = await createTicket(owner, { numTeams: 3 });

      const updated = await api.put<TicketBody>(`/tickets/${owned.uid}`, { numTeams: 4 }, { token: admin.token });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ numTeams: 4, hostUid: owner.uid, users: [owner.uid], version: 1 });

      const deleted = await api.delete(`/tickets/${owned.uid}`, { token: admin.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toBe('');
      expectErrorBody(await api.get(`/tickets/${owned.uid}`, { token: owner.token }), 404, 'NOT_FOUND');
    });
  });

  describe('a matched ticket', () => {
    it('refuses updating a MATCH_FOUND ticket with 409 CONFLICT and leaves it as matched', async () => {
      const first = await api.newPlayer('matched');
      const second = await api.newPlayer('matched');
      // A queue of their own, so that no other ticket of this file joins the match.
      const queue = {
        criteria: [{ name: 'queue', minValue: 'conflict', maxValue: 'conflict' }],
        statistics: [{ name: 'queue', value: 'conflict' }],
      };
      const mine = await createTicket(first, { numTeams: 2, teamSize: 1, ...queue });
      const theirs = await createTicket(second, { numTeams: 2, teamSize: 1, ...queue });

      const created = await api.app.get(MatchmakerService).runOnce();
      expect(created).toBeGreaterThanOrEqual(1);

      const matched = await api.get<TicketBody>(`/tickets/${mine.uid}`, { token: first.token });
      expect(matched.status).toBe(200);
      expect(matched.body).toMatchObject({ status: 'MATCH_FOUND', sessionUid: expect.stringMatching(UUID_V4), version: 1 });
      expect((await readTicket(theirs.uid)).sessionUid).toBe(matched.body.sessionUid);

      const byHost = await api.put<ErrorResponse>(`/tickets/${mine.uid}`, { numTeams: 3 }, { token: first.token });
      expectErrorBody(byHost, 409, 'CONFLICT');
      const byAdmin = await api.put<ErrorResponse>(`/tickets/${mine.uid}`, { status: 'SEARCHING' }, { token: admin.token });
      expectErrorBody(byAdmin, 409, 'CONFLICT');
      expect(await readTicket(mine.uid)).toEqual(matched.body);
    });
  });
});
