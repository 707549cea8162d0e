import { expectErrorBody, expectValidationError } from './support/expectations.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

/**
 * The admin audit (docs/CONSOLE.md): every admin write through the API, whichever client sent it, kept
 * append-only with who, when, what, the reason given and the record before and after; and the
 * admin-only reads the console's player page and overview use.
 */
describe("admin audit and the console's admin reads", () => {
  let api: TestApp;
  let admin: SignedInPlayer;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signInPlayer('admin');
  });

  afterAll(() => api.close());

  const newest = async (query = '') => (await api.found<Array<Record<string, unknown>>>(`/admin/audit?limit=1${query}`, admin.token))[0];

  it('records an admin edit with its reason and the record before and after', async () => {
    const item = await api.created<{ uid: string }>('/items', { name: 'Audited sword', cost: 5 }, admin.token);
    const edited = await api.put(`/items/${item.uid}`, { cost: 7 }, { token: admin.token, headers: { 'x-audit-reason': 'price fix #12' } });
    expect(edited.status).toBe(200);

    const summary = await newest();
    expect(summary).toMatchObject({
      actorUid: admin.uid,
      actor: 'idp1:admin',
      action: 'PUT /items/{id}',
      targetUid: item.uid,
      status: 200,
      reason: 'price fix #12',
    });
    expect(summary).not.toHaveProperty('before');
    const entry = await api.found<Record<string, any>>(`/admin/audit/${summary.id as string}`, admin.token);
    expect(entry.before).toMatchObject({ uid: item.uid, cost: 5 });
    expect(entry.after).toMatchObject({ uid: item.uid, cost: 7 });
    expect(entry.request).toEqual({ body: { cost: 7 }, query: {} });
  });

  it("records an award, a ban and an admin's GET that writes; never a player's write nor a refused one", async () => {
    const player = await api.newPlayerWithPersona();
    const before = await api.countRows('admin_audit');
    await api.created('/sessions', { numTeams: 2, teamSize: 2 }, player.token);
    expectErrorBody(await api.put('/items/00000000-0000-4000-8000-000000000000', { cost: 1 }, { token: admin.token }), 404, 'NOT_FOUND');
    expect(await api.countRows('admin_audit')).toBe(before);

    const item = await api.created<{ uid: string }>('/items', { name: 'Gem' }, admin.token);
    const award = { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: item.uid, quantity: 3 }] };
    expect(
      (await api.post('/inventories/transaction', award, { token: admin.token, headers: { 'idempotency-key': 'audit-award-1' } })).status,
    ).toBe(200);
    expect(await newest()).toMatchObject({ action: 'POST /inventories/transaction', status: 200 });

    expect((await api.post(`/users/${player.uid}/ban`, { reason: 'cheating' }, { token: admin.token })).status).toBe(200);
    expect(await newest(`&targetUid=${player.uid}`)).toMatchObject({ action: 'POST /users/{id}/ban', targetUid: player.uid });

    const lobby = await api.created<{ uid: string }>('/sessions', { numTeams: 2, teamSize: 2 }, admin.token);
    expect((await api.get(`/sessions/${lobby.uid}/join`, { token: admin.token })).status).toBe(200);
    expect(await newest()).toMatchObject({ action: 'GET /sessions/{id}/join', targetUid: lobby.uid });
    expect(await api.countRows('admin_audit')).toBe(before + 5);
  });

  it('records each of many concurrent admin writes in its own entry, committed before its answer', async () => {
    const made = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        api.created<{ uid: string }>('/items', { name: `Batch item ${index}`, cost: index }, admin.token),
      ),
    );
    // Concurrent edits share the audit's statements; each reads its own entry as soon as it is answered.
    const seen = await Promise.all(
      made.map(async (item, index) => {
        expect((await api.put(`/items/${item.uid}`, { cost: index + 100 }, { token: admin.token })).status).toBe(200);
        const entries = await api.found<Array<{ id: string; action: string }>>(`/admin/audit?targetUid=${item.uid}`, admin.token);
        expect(entries.map((entry) => entry.action)).toEqual(['PUT /items/{id}']);
        const entry = await api.found<{ id: string; before: unknown; after: unknown }>(`/admin/audit/${entries[0].id}`, admin.token);
        expect(entry.before).toMatchObject({ uid: item.uid, cost: index });
        expect(entry.after).toMatchObject({ uid: item.uid, cost: index + 100 });
        return entry.id;
      }),
    );
    expect(new Set(seen).size).toBe(40);
  });

  it('records a write whose text holds a lone surrogate, which jsonb refuses as it is', async () => {
    const asset = await api.created<{ uid: string }>('/assets/text', { name: '\udfff ', text: { default: ' ' } }, admin.token);
    const entry = await api.found<Record<string, any>>(`/admin/audit/${(await newest()).id as string}`, admin.token);
    expect(entry).toMatchObject({ action: 'POST /assets/text', request: { body: { name: '\ufffd ' } }, after: { uid: asset.uid } });
  });

  it('masks secrets in the request kept', async () => {
    await api.created('/sessions', { numTeams: 2, teamSize: 2, password: 'hunter2' }, admin.token);
    const entry = await api.found<Record<string, any>>(`/admin/audit/${(await newest()).id as string}`, admin.token);
    expect(entry.request.body.password).toBe('***');
    expect(JSON.stringify(entry)).not.toContain('hunter2');
  });

  it('filters by actor, target, action and time, and pages back with before', async () => {
    const items = [];
    for (const name of ['Page one', 'Page two', 'Page three'])
      items.push(await api.created<{ uid: string }>('/items', { name }, admin.token));
    const page = await api.found<Array<{ id: string; action: string }>>('/admin/audit?action=post%20/items&limit=2', admin.token);
    expect(page.map(({ action }) => action)).toEqual(['POST /items', 'POST /items']);
    const older = await api.found<Array<{ id: string }>>(`/admin/audit?action=POST%20/items&limit=2&before=${page[1].id}`, admin.token);
    expect(BigInt(older[0].id)).toBeLessThan(BigInt(page[1].id));
    expect(await api.found(`/admin/audit?actorUid=${items[0].uid}`, admin.token)).toEqual([]);
    expect(await api.found('/admin/audit?since=2999-01-01', admin.token)).toEqual([]);

    expectValidationError(await api.get('/admin/audit?limit=0', { token: admin.token }), 'limit');
    expectValidationError(await api.get('/admin/audit?actorUid=nobody', { token: admin.token }), 'actorUid');
    expectValidationError(await api.get('/admin/audit?colour=red', { token: admin.token }), 'colour');
    expectValidationError(await api.get('/admin/audit/abc', { token: admin.token }), 'id');
    expectErrorBody(await api.get('/admin/audit/999999999', { token: admin.token }), 404, 'NOT_FOUND');
  });

  it('refuses a reason with control characters or too long, and changes nothing', async () => {
    const before = await api.countRows('items');
    expectValidationError(
      await api.post('/items', { name: 'x' }, { token: admin.token, headers: { 'x-audit-reason': 'a'.repeat(501) } }),
      'X-Audit-Reason',
    );
    expect(await api.countRows('items')).toBe(before);
  });

  it('takes a reason of 1 to 500 characters from anyone, players too: an empty one or 501 characters is a 400 and changes nothing', async () => {
    const player = await api.newPlayer();
    const lobby = { numTeams: 2, teamSize: 2 };
    const sessions = await api.countRows('sessions');
    for (const reason of ['', ' ', 'a'.repeat(501)]) {
      for (const token of [player.token, admin.token]) {
        const refused = await api.post('/sessions', lobby, { token, headers: { 'x-audit-reason': reason } });
        expectValidationError(refused, 'X-Audit-Reason');
        expect(refused.body.message).toBe('X-Audit-Reason must be 1 to 500 characters without control characters');
      }
    }
    expect(await api.countRows('sessions')).toBe(sessions);

    const longest = 'é'.repeat(500);
    expect((await api.post('/sessions', lobby, { token: player.token, headers: { 'x-audit-reason': longest } })).status).toBe(201);
    expect((await api.post('/sessions', lobby, { token: admin.token, headers: { 'x-audit-reason': longest } })).status).toBe(201);
    expect(await newest()).toMatchObject({ action: 'POST /sessions', reason: longest });
    expect(await api.countRows('sessions')).toBe(sessions + 2);
  });

  it('cannot be changed, even by the service', async () => {
    await expect(api.database.query('UPDATE admin_audit SET reason = $1', ['covered'])).rejects.toThrow(/append-only/);
    await expect(api.database.query('DELETE FROM admin_audit')).rejects.toThrow(/append-only/);
    await expect(api.database.query('TRUNCATE admin_audit')).rejects.toThrow(/append-only/);
  });

  it('is for admins only', async () => {
    const player = await api.newPlayer();
    expectErrorBody(await api.get('/admin/audit', { token: player.token }), 403, 'FORBIDDEN');
  });
  describe("the console's admin reads", () => {
    it("reads a persona's ledger newest first, to its owner and admins only", async () => {
      const player = await api.newPlayerWithPersona();
      const other = await api.newPlayer();
      const item = await api.created<{ uid: string }>('/items', { name: 'Coin' }, admin.token);
      for (const quantity of [1, 2, 3]) {
        const award = { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: item.uid, quantity }] };
        expect((await api.post('/inventories/transaction', award, { token: admin.token })).status).toBe(200);
      }
      const ledger = await api.found<Array<{ delta: number; sequence: string }>>(
        `/inventories/ledger?personaUid=${player.personaUid}&limit=2`,
        player.token,
      );
      expect(ledger.map(({ delta }) => delta)).toEqual([3, 2]);
      const rest = await api.found<Array<{ delta: number }>>(
        `/inventories/ledger?personaUid=${player.personaUid}&before=${ledger[1].sequence}`,
        admin.token,
      );
      expect(rest.map(({ delta }) => delta)).toEqual([1]);
      expectErrorBody(await api.get(`/inventories/ledger?personaUid=${player.personaUid}`, { token: other.token }), 404, 'NOT_FOUND');
      expectValidationError(await api.get('/inventories/ledger?personaUid=x', { token: player.token }), 'personaUid');
    });

    it('signs a player out everywhere without banning them, and lists their unlocks', async () => {
      const player = await api.newPlayer();
      expect((await api.delete(`/users/${player.uid}/sessions`, { token: admin.token })).status).toBe(204);
      expectErrorBody(await api.get('/personas', { token: player.token }), 401, 'UNAUTHORIZED');
      expect((await api.openSession(player.name)).token).toEqual(expect.any(String));

      const achievement = await api.created<{ uid: string }>('/achievements', { name: 'Console tester' }, admin.token);
      const again = await api.signIn(player.name);
      expect((await api.get(`/achievements/${achievement.uid}/unlock`, { token: again })).status).toBe(200);
      const unlocks = await api.found<Array<{ achievementUid: string }>>(`/users/${player.uid}/unlocks`, admin.token);
      expect(unlocks.map(({ achievementUid }) => achievementUid)).toEqual([achievement.uid]);
    });

    it('reports the live figures: sockets, sign-ins and requests of the last minute', async () => {
      await api.newPlayer();
      const stats = await api.found<Record<string, number>>('/admin/stats', admin.token);
      expect(stats).toMatchObject({
        socketsOnline: 0,
        signInsPerMinute: expect.any(Number),
        requestsPerMinute: expect.any(Number),
        errorRate: expect.any(Number),
      });
      expect(stats.signInsPerMinute).toBeGreaterThanOrEqual(2);
      expect(stats.requestsPerMinute).toBeGreaterThan(0);
    });

    it('gives a development provider token to a client on this machine', async () => {
      const answer = await api.post<{ token: string }>('/auth/dev-token', { subject: 'picked' });
      expect(answer.status).toBe(200);
      expect((await api.get('/auth/idp1', { headers: { authorization: `jwt ${answer.body.token}` } })).status).toBe(200);
      expectValidationError(await api.post('/auth/dev-token', { subject: '' }), 'subject');
    });
  });
});
