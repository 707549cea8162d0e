import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { JwtService } from '@nestjs/jwt';
import type { OpenAPIObject } from '@nestjs/swagger';
import { decodeJwt } from 'jose';
import { DataSource } from 'typeorm';
import { AchievementUnlock } from '../src/achievements/achievement-unlock.entity.js';
import { EventOutbox } from '../src/realtime/event-outbox.js';
import { type InboxPage, NotificationsRepository, parseCursor } from '../src/realtime/notifications.repository.js';
import { MatchmakerService } from '../src/matchmaker/matchmaker.service.js';
import { ClosedAtOnce, type Frame, RealtimeClient, RefusedUpgrade } from './support/realtime-client.js';
import { eventDataSchema, shapeProblems } from './support/schema-shape.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

type Player = SignedInPlayer & { personaUid: string };

/**
 * /realtime with real WebSocket clients: who receives which event (and that nobody else does), resume
 * without gap or duplicate, an event if and only if its change committed, the credentials, the bounds.
 */
describe('realtime', () => {
  let api: TestApp;
  let admin: string;
  let alice: Player;
  let bob: Player;
  let carol: Player;
  const clients: RealtimeClient[] = [];
  const JWT_SECRET = randomBytes(32).toString('hex');

  const connect = async (options: Parameters<typeof RealtimeClient.connect>[1]) => {
    const client = await RealtimeClient.connect(api.baseUrl, options);
    clients.push(client);
    return client;
  };
  const refusal = (options: Parameters<typeof RealtimeClient.connect>[1]) =>
    RealtimeClient.connect(api.baseUrl, options).then(
      (client) => {
        clients.push(client);
        throw new Error('the upgrade was accepted');
      },
      (error: unknown) => error as RefusedUpgrade,
    );

  const createItem = async (name: string) => (await api.post('/items', { name }, { token: admin })).body.uid as string;
  const award = async (personaUid: string, itemUid: string, quantity: number) => {
    const response = await api.post(
      '/inventories/transaction',
      { type: 'AWARD', personaOneUid: personaUid, personaOneInventoryItems: [{ itemUid, quantity }] },
      { token: admin },
    );
    expect(response.status).toBe(200);
  };
  /** Gives the sockets a moment in which an event that should not come would have come. */
  const quietPeriod = () => sleep(300);

  beforeAll(async () => {
    api = await TestApp.start({ JWT_SECRET, REALTIME_MAX_SOCKETS_PER_USER: '3' }, { listen: true });
    admin = await api.signIn('admin');
    [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((name) => api.signInWithPersona(name)));
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => api.close());

  describe('opening a socket', () => {
    it('refuses an upgrade without credentials, or with bad ones, with 401 and the JSON error body', async () => {
      for (const options of [{}, { token: 'not-a-token' }, { ticket: 'no-such-ticket' }, { headers: { authorization: 'Basic abc' } }]) {
        const refused = await refusal(options);
        expect(refused).toBeInstanceOf(RefusedUpgrade);
        expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
        expect(refused.body.requestId).toEqual(expect.any(String));
      }
    });

    it('refuses an expired token with 401, and a malformed after with 400', async () => {
      const expired = await new JwtService({ secret: JWT_SECRET }).signAsync(
        { sub: alice.uid, roles: ['user'], sid: decodeJwt<{ sid: string }>(alice.token).sid },
        { expiresIn: -10, issuer: 'game-backend', audience: 'game-backend' },
      );
      expect((await refusal({ token: expired })).status).toBe(401);
      const malformed = await refusal({ token: alice.token, after: 'yesterday' });
      expect({ status: malformed.status, code: malformed.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    });

    it('opens with a single-use ticket from POST /realtime/tickets, for browsers', async () => {
      const issued = await api.post('/realtime/tickets', undefined, { token: alice.token });
      expect(issued.status).toBe(201);
      expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeLessThanOrEqual(30_000);
      const socket = await connect({ ticket: issued.body.ticket });
      expect(socket.frames[0]).toMatchObject({ type: 'realtime.ready', data: { userUid: alice.uid } });
      expect((await refusal({ ticket: issued.body.ticket })).status).toBe(401);
      expect((await api.post('/realtime/tickets')).status).toBe(401);
    });

    it('closes the socket when its token expires (4401)', async () => {
      const shortLived = await new JwtService({ secret: JWT_SECRET }).signAsync(
        { sub: alice.uid, roles: ['user'], sid: decodeJwt<{ sid: string }>(alice.token).sid },
        { expiresIn: 2, issuer: 'game-backend', audience: 'game-backend' },
      );
      const socket = await connect({ token: shortLived });
      expect(await socket.closed).toMatchObject({ code: 4401 });
    });

    it('caps the sockets of one user (4429 for one more)', async () => {
      const open = await Promise.all([1, 2, 3].map(() => connect({ token: carol.token })));
      const extra = await RealtimeClient.connect(api.baseUrl, { token: carol.token }).catch((error: unknown) => error);
      // The fourth opens and is closed at once, before its ready frame, with the code that says why.
      expect(extra).toBeInstanceOf(ClosedAtOnce);
      expect((extra as ClosedAtOnce).code).toBe(4429);
      expect(open.every((client) => client.socket.readyState === client.socket.OPEN)).toBe(true);
    });
  });

  /** realtime_events_written_total of the two events a settled transaction writes. */
  async function eventsWrittenSoFar(): Promise<Record<'inventory.updated' | 'transaction.updated', number>> {
    const metrics = String((await api.get<string>('/metrics')).body);
    const count = (type: string) =>
      Number(new RegExp(`^realtime_events_written_total\\{type="${type}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    return { 'inventory.updated': count('inventory.updated'), 'transaction.updated': count('transaction.updated') };
  }

  describe('events reach exactly the users concerned', () => {
    it('pushes a trade offer to persona two, then the outcome and the inventories to both, and nothing to others', async () => {
      const [sword, gold] = [await createItem('Sword'), await createItem('Gold')];
      await award(alice.personaUid, sword, 2);
      await award(bob.personaUid, gold, 50);
      const [toAlice, toBob, toCarol] = await Promise.all([alice, bob, carol].map((player) => connect({ token: player.token })));

      const offer = await api.post(
        '/inventories/transaction',
        {
          personaOneUid: alice.personaUid,
          personaTwoUid: bob.personaUid,
          personaOneInventoryItems: [{ itemUid: sword, quantity: 1 }],
          personaTwoInventoryItems: [{ itemUid: gold, quantity: 20 }],
        },
        { token: alice.token },
      );
      expect(offer.body.status).toBe('PENDING');
      const pending = await toBob.waitFor((frame) => frame.type === 'transaction.pending');
      // The record as the REST API returns it to Bob.
      expect(pending.data).toEqual((await api.get(`/transactions/${offer.body.uid}`, { token: bob.token })).body);

      const written = await eventsWrittenSoFar();
      expect((await api.post(`/transactions/${offer.body.uid}/accept`, undefined, { token: bob.token })).body.status).toBe('COMPLETED');
      // Counted in /metrics: one inventory.updated per persona, the outcome to both owners.
      expect(await eventsWrittenSoFar()).toEqual({
        'inventory.updated': written['inventory.updated'] + 2,
        'transaction.updated': written['transaction.updated'] + 2,
      });
      const settled = (await api.get(`/transactions/${offer.body.uid}`, { token: alice.token })).body;
      for (const [socket, player, after] of [
        [toAlice, alice, settled.personaOneInventoryItemsAfter],
        [toBob, bob, settled.personaTwoInventoryItemsAfter],
      ] as const) {
        // The record as the REST API returns it, and the holdings as its snapshots after: every field.
        const done = await socket.waitFor((frame) => frame.type === 'transaction.updated');
        expect(done.data).toEqual(settled);
        const inventory = await socket.waitFor((frame) => frame.type === 'inventory.updated');
        expect(inventory.data.personaUid).toBe(player.personaUid);
        expect(inventory.data.holdings).toEqual(expect.arrayContaining(after));
        expect(inventory.data.holdings).toHaveLength(2);
      }
      // Sent in the order they were written: each inventory first, then the record.
      expect(toAlice.events.map((frame) => frame.type).filter((type) => type !== 'transaction.pending')).toEqual([
        'inventory.updated',
        'transaction.updated',
      ]);
      await quietPeriod();
      expect(toAlice.events.map((frame) => frame.type)).not.toContain('transaction.pending');
      expect(toCarol.events).toEqual([]);
      // Nothing secret travels: no creator, no idempotency key.
      expect(pending.data).not.toHaveProperty('createdByUid');
      expect(pending.data).not.toHaveProperty('requestHash');
    });

    it('pushes session changes in brief to the host and members, an invitation to the invited, and nothing to others', async () => {
      const [toAlice, toBob, toCarol] = await Promise.all([alice, bob, carol].map((player) => connect({ token: player.token })));
      const created = await api.post(
        '/sessions',
        { numTeams: 2, teamSize: 2, visibility: 'INVITE_ONLY', invited: [bob.uid], password: 'hunter2' },
        { token: alice.token },
      );
      expect(created.status).toBe(201);
      const brief = { uid: created.body.uid, status: 'WAITING_FOR_PLAYERS', visibility: 'INVITE_ONLY', hostUid: alice.uid };
      const invitation = await toBob.waitFor((frame) => frame.type === 'session.invited');
      expect(invitation.data).toEqual({ ...brief, version: 0 });

      expect((await api.get(`/sessions/${created.body.uid}/join`, { token: bob.token })).status).toBe(200);
      for (const socket of [toAlice, toBob]) {
        const update = await socket.waitFor((frame) => frame.type === 'session.updated');
        expect(update.data).toEqual({
          ...brief,
          version: 1,
          changed: ['teams', 'users'],
          joined: [bob.uid],
          left: [],
        });
      }
      // The brief agrees with the session as REST serves it.
      const read = await api.get(`/sessions/${created.body.uid}`, { token: bob.token });
      expect(read.body).toMatchObject({ version: 1, users: [alice.uid, bob.uid] });

      expect((await api.get(`/sessions/${created.body.uid}/join`, { token: carol.token })).status).toBe(403);
      expect((await api.get(`/sessions/${created.body.uid}/leave`, { token: bob.token })).status).toBe(200);
      const left = await toBob.waitFor((frame) => frame.type === 'session.updated' && frame.data.version === 2);
      expect(left.data).toMatchObject({ joined: [], left: [bob.uid], changed: ['teams', 'users'] });
      expect((await api.delete(`/sessions/${created.body.uid}`, { token: alice.token })).status).toBe(200);
      const deleted = await toAlice.waitFor((frame) => frame.type === 'session.deleted');
      expect(deleted.data).toEqual({ uid: created.body.uid, version: 2 });
      await quietPeriod();
      // Bob left before the delete: he hears of it no more. Carol never hears of the session at all.
      expect(toBob.events.map((frame) => frame.type)).toEqual(['session.invited', 'session.updated', 'session.updated']);
      expect(toCarol.events).toEqual([]);
    });

    it('pushes MATCH_FOUND with the session to every player of the matched tickets, from the matchmaker', async () => {
      const body = { numTeams: 2, teamSize: 1 };
      const [toAlice, toBob, toCarol] = await Promise.all([alice, bob, carol].map((player) => connect({ token: player.token })));
      for (const player of [alice, bob]) expect((await api.post('/tickets', body, { token: player.token })).status).toBe(201);
      expect(await api.app.get(MatchmakerService).runOnce()).toBe(1);
      const matched = await Promise.all([toAlice, toBob].map((socket) => socket.waitFor((frame) => frame.type === 'ticket.updated')));
      expect(matched.map((frame) => frame.data.status)).toEqual(['MATCH_FOUND', 'MATCH_FOUND']);
      expect(matched[0].data.sessionUid).toEqual(matched[1].data.sessionUid);
      await quietPeriod();
      expect(toCarol.events).toEqual([]);
    });

    it('pushes an achievement unlock to its user only, once', async () => {
      const achievement = (await api.post('/achievements', { name: 'First blood' }, { token: admin })).body;
      const [toAlice, toBob] = await Promise.all([alice, bob].map((player) => connect({ token: player.token })));
      expect((await api.get(`/achievements/${achievement.uid}/unlock`, { token: alice.token })).status).toBe(200);
      expect((await api.get(`/achievements/${achievement.uid}/unlock`, { token: alice.token })).status).toBe(200);
      const unlocked = await toAlice.waitFor((frame) => frame.type === 'achievement.unlocked');
      expect(unlocked.data).toMatchObject({ achievementUid: achievement.uid, userUid: alice.uid });
      await quietPeriod();
      expect(toAlice.events.filter((frame) => frame.type === 'achievement.unlocked')).toHaveLength(1);
      expect(toBob.events).toEqual([]);
    });
  });

  describe('events whose payload SQL builds', () => {
    it("writes, from the settling statement, exactly the fields of each event's class in the document", async () => {
      const document = (await api.get<OpenAPIObject>('/docs-json')).body;
      const dataSource = api.app.get(DataSource);
      const [{ last }] = await dataSource.query<[{ last: string }]>(`SELECT coalesce(max(id), 0)::text AS last FROM notifications`);
      const [ring, coin] = [await createItem('Ring'), await createItem('Coin')];
      await award(alice.personaUid, ring, 2);
      await award(alice.personaUid, coin, 5);
      // A gift (persona two gives nothing: settled at once) of all her rings and one coin: one holding
      // goes, one shrinks, and Bob's are new.
      const gift = (items: Array<{ itemUid: string; quantity: number }>) =>
        api.post(
          '/inventories/transaction',
          { personaOneUid: alice.personaUid, personaTwoUid: bob.personaUid, personaOneInventoryItems: items },
          { token: alice.token },
        );
      expect(
        (
          await gift([
            { itemUid: ring, quantity: 2 },
            { itemUid: coin, quantity: 1 },
          ])
        ).body.status,
      ).toBe('COMPLETED');
      // A ring she no longer has: FAILED with its reason, nothing moved.
      expect((await gift([{ itemUid: ring, quantity: 1 }])).status).toBe(409);

      const rows = await dataSource.query<Array<{ type: string; data: any }>>(
        `SELECT type, data FROM notifications WHERE id > $1 AND "userUid" = ANY($2) ORDER BY id`,
        [last, [alice.uid, bob.uid]],
      );
      const problems = rows.flatMap((row, index) =>
        shapeProblems(document, row.data, eventDataSchema(document, row.type), `${row.type} #${index}`),
      );
      expect(problems).toEqual([]);
      // Every shape the statement builds was among them.
      const holdings = rows.filter((row) => row.type === 'inventory.updated').flatMap((row) => row.data.holdings);
      expect(holdings).toContainEqual({ personaUid: alice.personaUid, itemUid: ring, quantity: 0 });
      expect(holdings).toContainEqual(expect.objectContaining({ personaUid: alice.personaUid, itemUid: coin, quantity: 4 }));
      expect(holdings).toContainEqual(expect.objectContaining({ personaUid: bob.personaUid, itemUid: ring, quantity: 2, version: 0 }));
      const outcomes = rows.filter((row) => row.type === 'transaction.updated').map((row) => row.data);
      expect(outcomes).toContainEqual(expect.objectContaining({ type: 'AWARD', status: 'COMPLETED', reason: null }));
      expect(outcomes).toContainEqual(expect.objectContaining({ type: 'TRADE', status: 'FAILED', reason: expect.any(String) }));
    });
  });

  describe('the inbox janitor', () => {
    it('removes events past the retention and expired tickets, and steps aside while another instance prunes', async () => {
      const inbox = api.app.get(NotificationsRepository);
      const dataSource = api.app.get(DataSource);
      const [dave] = await api.signInPlayers(1, 'janitor');
      await dataSource.query(
        `INSERT INTO notifications ("userUid", type, data, "dateCreated")
         VALUES ($1, 'session.updated', '{"old":true}', now() - interval '2 hours'), ($1, 'session.updated', '{"old":false}', now())`,
        [dave.uid],
      );
      const ticket = (await api.post('/realtime/tickets', undefined, { token: dave.token })).body.ticket as string;
      expect(ticket).toEqual(expect.any(String));
      await dataSource.query(`UPDATE realtime_tickets SET "expiresAt" = now() - interval '1 second' WHERE "userUid" = $1`, [dave.uid]);
      const lock = 0x6a616e;

      // Another instance holds the janitor's lock: this one prunes nothing.
      const other = dataSource.createQueryRunner();
      await other.startTransaction();
      await other.query('SELECT pg_advisory_xact_lock($1)', [lock]);
      try {
        expect(await inbox.prune(lock, 3600)).toBeUndefined();
        expect(await dataSource.query(`SELECT count(*)::int AS n FROM notifications WHERE "userUid" = $1`, [dave.uid])).toEqual([{ n: 2 }]);
      } finally {
        await other.rollbackTransaction();
        await other.release();
      }

      expect(await inbox.prune(lock, 3600)).toBeGreaterThanOrEqual(1);
      expect(await dataSource.query(`SELECT data FROM notifications WHERE "userUid" = $1`, [dave.uid])).toEqual([{ data: { old: false } }]);
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM realtime_tickets WHERE "userUid" = $1`, [dave.uid])).toEqual([
        { n: 0 },
      ]);
      // The expired ticket opens nothing.
      expect(await refusal({ ticket })).toMatchObject({ status: 401 });
    });
  });

  describe('delivery', () => {
    it('resumes after the last id: exactly the events missed, in order, then live ones', async () => {
      const gem = await createItem('Gem');
      const first = await connect({ token: bob.token });
      await award(bob.personaUid, gem, 1);
      const seen = await first.waitFor((frame) => frame.type === 'inventory.updated');
      await first.close();
      for (const quantity of [2, 3, 4]) await award(bob.personaUid, gem, quantity);

      const resumed = await connect({ token: bob.token, after: seen.id });
      const missed = await resumed.waitForEvents(6); // each award: transaction.updated and inventory.updated
      const inventories = missed.filter((frame) => frame.type === 'inventory.updated').map((frame) => frame.data.holdings[0].quantity);
      expect(inventories).toEqual([3, 6, 10]);
      expect(new Set(missed.map((frame) => frame.id)).size).toBe(missed.length);
      expect(missed.map((frame) => frame.id)).not.toContain(seen.id);
      await award(bob.personaUid, gem, 5);
      await resumed.waitFor((frame) => frame.type === 'inventory.updated' && frame.data.holdings[0].quantity === 15);

      // The same inbox over REST, for clients without a socket.
      const inbox = await api.get<Frame[]>(`/notifications?after=${seen.id}`, { token: bob.token });
      expect(inbox.status).toBe(200);
      expect(inbox.body.map((frame) => frame.id)).toEqual(resumed.events.map((frame) => frame.id));
      const page = await api.get<Frame[]>(`/notifications?after=${seen.id}&limit=2`, { token: bob.token });
      expect(page.body).toEqual(inbox.body.slice(0, 2));
      expect((await api.get('/notifications?after=x', { token: bob.token })).status).toBe(400);
      // Nobody reads another's inbox: Carol's is her own.
      expect(
        (await api.get<Frame[]>('/notifications', { token: carol.token })).body.every(
          (frame) => frame.type !== 'inventory.updated' || frame.data.personaUid === carol.personaUid,
        ),
      ).toBe(true);
    });

    it('reads the inboxes of many users in one statement: each from its cursor, in order, at most limit each, within one byte budget', async () => {
      const inbox = api.app.get(NotificationsRepository);
      const [dan, eve, fay] = await Promise.all(['dan', 'eve', 'fay'].map((name) => api.signInPlayer(name)));
      const start = await inbox.now();
      // Five events of some 1.1 KB, each written by a transaction of its own, Dan's and Fay's in turn; none for Eve.
      const pad = 'x'.repeat(1000);
      const ids = new Map<string, string[]>([
        [dan.uid, []],
        [fay.uid, []],
      ]);
      for (const [index, user] of [dan, fay, dan, fay, dan].entries()) {
        const { rows } = await api.database.query<{ id: string }>(
          `INSERT INTO notifications ("userUid", type, data) VALUES ($1, 'storage.updated', $2) RETURNING xid::text || '-' || id::text AS id`,
          [user.uid, { index, pad }],
        );
        ids.get(user.uid)!.push(rows[0].id);
      }
      const [danIds, fayIds] = [ids.get(dan.uid)!, ids.get(fay.uid)!];
      // Deliverable once every older transaction has ended (a background job's may still run).
      while ((await inbox.xmin()) <= parseCursor(danIds[2])!.xid) await sleep(5);
      const read = (limit: number, maxBytes: number) =>
        inbox.pagesAfter(
          [dan, eve, fay].map((user) => ({ userUid: user.uid, after: start })),
          limit,
          maxBytes,
        );
      const shape = (pages: InboxPage[]) => pages.map((page) => ({ ids: page.events.map((event) => event.id), full: page.full }));

      expect(shape(await read(10, 1_000_000))).toEqual([
        { ids: danIds, full: false },
        { ids: [], full: false },
        { ids: fayIds, full: false },
      ]);
      // At most `limit` each: a full page says to read on.
      expect(shape(await read(2, 1_000_000))).toEqual([
        { ids: danIds.slice(0, 2), full: true },
        { ids: [], full: false },
        { ids: fayIds, full: true },
      ]);
      // Each from its own cursor.
      const resumed = await inbox.pagesAfter(
        [
          { userUid: dan.uid, after: parseCursor(danIds[0])! },
          { userUid: fay.uid, after: parseCursor(fayIds[1])! },
        ],
        10,
        1_000_000,
      );
      expect(shape(resumed)).toEqual([
        { ids: danIds.slice(1), full: false },
        { ids: [], full: false },
      ]);
      // One budget for all, spent in the users' order: the user it ran out on, and those after, read on later.
      expect(shape(await read(10, 3800))).toEqual([
        { ids: danIds, full: false },
        { ids: [], full: false },
        { ids: [], full: true },
      ]);
      expect(shape(await read(10, 2500))).toEqual([
        { ids: danIds.slice(0, 2), full: true },
        { ids: [], full: true },
        { ids: [], full: true },
      ]);
      // The first event is read whatever the budget, so that a read always gets on.
      expect(shape(await read(10, 1))).toEqual([
        { ids: danIds.slice(0, 1), full: true },
        { ids: [], full: true },
        { ids: [], full: true },
      ]);
      expect((await read(1, 1_000_000))[2].events).toEqual([
        { id: fayIds[0], type: 'storage.updated', at: expect.any(String), data: { index: 1, pad } },
      ]);
    });

    it('writes no event for a change that rolls back', async () => {
      const socket = await connect({ token: carol.token });
      const dataSource = api.app.get(DataSource);
      const marker = randomUUID();
      await expect(
        dataSource.transaction(async (transaction) => {
          const unlock = transaction.create(AchievementUnlock, { uid: marker, achievementUid: marker, userUid: carol.uid });
          await api.app.get(EventOutbox).record(transaction, 'achievement.unlocked', unlock, { users: [carol.uid] });
          throw new Error('the change fails after its event was written');
        }),
      ).rejects.toThrow('the change fails');
      await quietPeriod();
      expect(socket.events).toEqual([]);
      expect((await api.get<Frame[]>('/notifications', { token: carol.token })).body.some((frame) => frame.data?.uid === marker)).toBe(
        false,
      );
    });

    it('delivers an event that an older transaction held back, once that one ends', async () => {
      const socket = await connect({ token: carol.token });
      const dataSource = api.app.get(DataSource);
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      // An older transaction with an id (it wrote), still running: later events wait for it.
      await runner.query(`UPDATE users SET name = name WHERE uid = $1`, [carol.uid]);
      const achievement = (await api.post('/achievements', { name: 'Patience' }, { token: admin })).body;
      expect((await api.get(`/achievements/${achievement.uid}/unlock`, { token: carol.token })).status).toBe(200);
      await quietPeriod();
      expect(socket.events).toEqual([]);
      await runner.commitTransaction();
      await runner.release();
      await socket.waitFor((frame) => frame.type === 'achievement.unlocked');
    });

    it('reaches every one of many sockets of a user', async () => {
      const crowd = await TestApp.start({ REALTIME_MAX_SOCKETS_PER_USER: '1000' }, { listen: true });
      try {
        const player = await crowd.signInWithPersona('crowd');
        const adminToken = await crowd.signIn('admin');
        const sockets: RealtimeClient[] = [];
        for (let batch = 0; batch < 10; batch++) {
          sockets.push(
            ...(await Promise.all(Array.from({ length: 100 }, () => RealtimeClient.connect(crowd.baseUrl, { token: player.token })))),
          );
        }
        const item = (await crowd.post('/items', { name: 'Banner' }, { token: adminToken })).body.uid as string;
        await crowd.post(
          '/inventories/transaction',
          { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: item, quantity: 1 }] },
          { token: adminToken },
        );
        const received = await Promise.all(sockets.map((socket) => socket.waitFor((frame) => frame.type === 'inventory.updated', 30_000)));
        expect(received).toHaveLength(1000);
        await Promise.all(sockets.map((socket) => socket.close()));
      } finally {
        await crowd.close();
      }
    }, 120_000);

    it('closes a slow consumer (4413) instead of holding its backlog in memory', async () => {
      // No pings: a paused client answers none, and on a loaded machine the awards could outlast the interval.
      const slow = await TestApp.start({ REALTIME_MAX_BUFFER: '1024', REALTIME_PING_INTERVAL: '3600000' }, { listen: true });
      try {
        const slowAdmin = await slow.signIn('admin');
        const player = await slow.signInWithPersona('slowpoke');
        // Awards of a hundred items: each sends the player two frames of some 20 KB (the holdings and the transaction).
        const items: string[] = [];
        for (let index = 0; index < 100; index++)
          items.push((await slow.post('/items', { name: `Gem ${index}` }, { token: slowAdmin })).body.uid);
        const socket = await RealtimeClient.connect(slow.baseUrl, { token: player.token });
        // The client stops reading: what the server sends piles up on its side.
        (socket.socket as unknown as { _socket: { pause(): void } })._socket.pause();
        const slowConsumers = async () =>
          Number(/^realtime_slow_consumers_total (\d+)$/m.exec((await slow.get<string>('/metrics')).body)?.[1] ?? 0);
        // Until the server gives up on the socket, and not one award more: its closing frame waits behind
        // what the client has not read, and a client still paused when the server's closing handshake
        // times out (ws: 30 s) sees the connection cut (1006) instead, as a long run of awards on a
        // loaded machine once made it.
        for (let awarded = 0; awarded < 300 && (await slowConsumers()) === 0; awarded++) {
          const response = await slow.post(
            '/inventories/transaction',
            {
              type: 'AWARD',
              personaOneUid: player.personaUid,
              personaOneInventoryItems: items.map((itemUid) => ({ itemUid, quantity: 1 })),
            },
            { token: slowAdmin },
          );
          expect(response.status).toBe(200);
        }
        expect(await slowConsumers()).toBe(1);
        (socket.socket as unknown as { _socket: { resume(): void } })._socket.resume();
        expect(await socket.closed).toMatchObject({ code: 4413 });
      } finally {
        await slow.close();
      }
    }, 120_000);

    it('closes its sockets with 1001 when the service shuts down', async () => {
      const leaving = await TestApp.start({}, { listen: true });
      const player = await leaving.signInPlayer('leaver');
      const socket = await RealtimeClient.connect(leaving.baseUrl, { token: player.token });
      await leaving.close();
      expect(await socket.closed).toMatchObject({ code: 1001 });
    });
  });
});
