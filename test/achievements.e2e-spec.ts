import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { TestApp } from './support/test-app.js';
import type { AchievementBody, CountBody, ErrorResponse, UnlockBody } from './support/api-types.js';
import { expectErrorBody, expectValidationError, ISO_MILLISECONDS, UUID_V4 } from './support/expectations.js';

/** Achievement definitions (catalog data, optional-auth create and count) and per-user unlocks (docs/CONTRACT.md section 7). */

describe('achievements', () => {
  let api: TestApp;
  let admin: string;
  let player: string;
  let playerUid: string;
  let rival: string;
  let rivalUid: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
    player = await api.signIn('player-one');
    playerUid = decodeJwt(player).sub!;
    rival = await api.signIn('player-two');
    rivalUid = decodeJwt(rival).sub!;
  });

  afterAll(async () => {
    await api.close();
  });

  async function createAchievement(body: Record<string, unknown>): Promise<AchievementBody> {
    const response = await api.post<AchievementBody>('/achievements', body, { token: admin });
    expect(response.status).toBe(201);
    return response.body;
  }

  async function readAchievement(uid: string): Promise<AchievementBody> {
    const response = await api.get<AchievementBody>(`/achievements/${uid}`, { token: admin });
    expect(response.status).toBe(200);
    return response.body;
  }

  async function achievementCount(): Promise<number> {
    const response = await api.get<CountBody>('/achievements/count');
    expect(response.status).toBe(200);
    return response.body.count;
  }

  async function unlockRows(achievementUid: string): Promise<Array<{ uid: string; userUid: string }>> {
    const result = await api.database.query<{ uid: string; userUid: string }>(
      'SELECT uid, "userUid" FROM achievement_unlocks WHERE "achievementUid" = $1 ORDER BY "userUid"',
      [achievementUid],
    );
    return result.rows;
  }

  describe('definitions', () => {
    it('creates a definition with 201, server-assigned fields and nulls for what was not given', async () => {
      const response = await api.post<AchievementBody>('/achievements', { name: 'First blood' }, { token: admin });

      expect(response.status).toBe(201);
      expect(response.headers.etag).toBe('"0"');
      expect(response.body).toEqual({
        uid: expect.stringMatching(UUID_V4),
        name: 'First blood',
        description: null,
        badge: null,
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
        version: 0,
      });
      expect(response.body).not.toHaveProperty('ownerUid');
    });

    it('stores every field and lets a player find, list and count definitions', async () => {
      const created = await createAchievement({
        name: 'Dragon slayer',
        description: 'Defeat the red dragon.',
        badge: 'https://cdn.example.com/badges/dragon.png',
      });

      const found = await api.get<AchievementBody>(`/achievements/${created.uid}`, { token: player });
      const list = await api.get<AchievementBody[]>('/achievements?limit=1000', { token: player });
      const count = await api.get<CountBody>('/achievements/count', { token: player });
      const filtered = await api.get<AchievementBody[]>('/achievements?name=Dragon%20slayer', { token: player });

      expect(found.status).toBe(200);
      expect(found.headers.etag).toBe('"0"');
      expect(found.body).toEqual(created);
      expect(list.status).toBe(200);
      expect(list.body).toContainEqual(created);
      expect(count.status).toBe(200);
      expect(count.body).toEqual({ count: list.body.length });
      expect(filtered.body).toEqual([created]);
    });

    it('counts without a token (optional auth), with the list filters', async () => {
      await createAchievement({ name: 'Countable one' });
      await createAchievement({ name: 'Countable two' });

      const anonymous = await api.get<CountBody>('/achievements/count');
      const signedIn = await api.get<CountBody>('/achievements/count', { token: player });
      const filtered = await api.get<CountBody>('/achievements/count?name=like(Countable)');

      expect(anonymous.status).toBe(200);
      expect(anonymous.body).toEqual({ count: signedIn.body.count });
      expect(filtered.body).toEqual({ count: 2 });
      expectValidationError(await api.get('/achievements/count?colour=red'), 'colour');
    });

    it('answers 401 to an invalid token on the optional-auth routes', async () => {
      const before = await achievementCount();

      expectErrorBody(await api.get('/achievements/count', { token: 'not-a-token' }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/achievements', { name: 'Forged' }, { token: 'not-a-token' }), 401, 'UNAUTHORIZED');
      expect(await achievementCount()).toBe(before);
    });

    it('merges an update, clears badge and description with null, and bumps the version', async () => {
      const created = await createAchievement({ name: 'Explorer', description: 'Visit every town.', badge: 'explorer' });

      const response = await api.put<AchievementBody>(`/achievements/${created.uid}`, { badge: null, description: null }, { token: admin });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"1"');
      expect(response.body).toEqual({
        ...created,
        badge: null,
        description: null,
        version: 1,
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
      });
      expect(await readAchievement(created.uid)).toEqual(response.body);
    });

    it('refuses a stale version with 409 and changes nothing', async () => {
      const created = await createAchievement({ name: 'Contested' });
      const first = await api.put<AchievementBody>(`/achievements/${created.uid}`, { name: 'Contested I', version: 0 }, { token: admin });
      expect(first.status).toBe(200);

      const stale = await api.put<ErrorResponse>(
        `/achievements/${created.uid}`,
        { name: 'Contested II' },
        { token: admin, headers: { 'if-match': '"0"' } },
      );

      expectErrorBody(stale, 409, 'VERSION_CONFLICT');
      expect(stale.body.currentVersion).toBe(1);
      expect(await readAchievement(created.uid)).toEqual(first.body);
    });

    it('refuses an update whose body names another uid with 400, and changes nothing', async () => {
      const created = await createAchievement({ name: 'Myself' });

      expectValidationError(await api.put(`/achievements/${created.uid}`, { uid: randomUUID(), name: 'Other' }, { token: admin }), 'uid');
      expect(await readAchievement(created.uid)).toEqual(created);
    });

    it('deletes a definition with 200 and no body; it is then 404', async () => {
      const created = await createAchievement({ name: 'Doomed' });

      const response = await api.delete(`/achievements/${created.uid}`, { token: admin });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expectErrorBody(await api.get(`/achievements/${created.uid}`, { token: admin }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(`/achievements/${created.uid}`, { token: admin }), 404, 'NOT_FOUND');
    });

    it('answers 400 to a malformed id and 404 to an unknown one', async () => {
      for (const response of [
        await api.get('/achievements/not-a-uuid', { token: admin }),
        await api.put('/achievements/not-a-uuid', { name: 'x' }, { token: admin }),
        await api.delete('/achievements/not-a-uuid', { token: admin }),
        await api.get('/achievements/not-a-uuid/unlock', { token: player }),
      ]) {
        expectValidationError(response, 'id');
      }
      const unknown = randomUUID();
      for (const response of [
        await api.get(`/achievements/${unknown}`, { token: admin }),
        await api.put(`/achievements/${unknown}`, { name: 'x' }, { token: admin }),
        await api.delete(`/achievements/${unknown}`, { token: admin }),
      ]) {
        expectErrorBody(response, 404, 'NOT_FOUND');
      }
    });
  });

  describe('validation', () => {
    it.each([
      ['no name', { description: 'Nameless' }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name'],
      ['a badge that is not a string', { name: 'Badged', badge: 5 }, 'badge'],
      ['a badge of 2049 characters', { name: 'Badged', badge: 'b'.repeat(2049) }, 'badge'],
      ['an unknown field', { name: 'Colourful', colour: 'red' }, 'colour'],
    ])('refuses a create with %s: 400 naming the field, nothing created', async (_case, body, field) => {
      const before = await achievementCount();

      expectValidationError(await api.post('/achievements', body, { token: admin }), field);
      expect(await achievementCount()).toBe(before);
    });

    it.each([
      ['a null name', { name: null }, 'name'],
      ['a badge that is not a string', { badge: ['a'] }, 'badge'],
      ['a version that is not an integer', { version: 'latest' }, 'version'],
    ])('refuses an update with %s: 400 naming the field, definition unchanged', async (_case, body, field) => {
      const created = await createAchievement({ name: 'Steady', badge: 'steady' });

      expectValidationError(await api.put(`/achievements/${created.uid}`, body, { token: admin }), field);
      expect(await readAchievement(created.uid)).toEqual(created);
    });
  });

  describe('access', () => {
    it('refuses an anonymous create with 401 (ANONYMOUS_WRITES is off) and creates nothing', async () => {
      const before = await achievementCount();

      expectErrorBody(await api.post('/achievements', { name: 'Anonymous' }), 401, 'UNAUTHORIZED');
      expect(await achievementCount()).toBe(before);
    });

    it('answers 401 to every required-auth route without a token, and changes nothing', async () => {
      const created = await createAchievement({ name: 'Anonymous target' });
      const before = await achievementCount();

      for (const response of [
        await api.get('/achievements'),
        await api.get(`/achievements/${created.uid}`),
        await api.put(`/achievements/${created.uid}`, { name: 'Renamed' }),
        await api.delete(`/achievements/${created.uid}`),
        await api.delete('/achievements'),
        await api.get(`/achievements/${created.uid}/unlock`),
        await api.get('/achievements/unlocked'),
      ]) {
        expectErrorBody(response, 401, 'UNAUTHORIZED');
      }
      expect(await achievementCount()).toBe(before);
      expect(await readAchievement(created.uid)).toEqual(created);
      expect(await unlockRows(created.uid)).toEqual([]);
    });

    it('refuses a player every definition write with 403, and changes nothing', async () => {
      const created = await createAchievement({ name: 'Guarded' });
      await api.get(`/achievements/${created.uid}/unlock`, { token: player });
      const before = await achievementCount();

      expectErrorBody(await api.post('/achievements', { name: 'Self-awarded' }, { token: player }), 403, 'FORBIDDEN');
      expectErrorBody(await api.put(`/achievements/${created.uid}`, { name: 'Renamed' }, { token: player }), 403, 'FORBIDDEN');
      expectErrorBody(await api.delete(`/achievements/${created.uid}`, { token: player }), 403, 'FORBIDDEN');
      expectErrorBody(await api.delete('/achievements', { token: player }), 403, 'FORBIDDEN');

      expect(await achievementCount()).toBe(before);
      expect(await readAchievement(created.uid)).toEqual(created);
      expect(await unlockRows(created.uid)).toHaveLength(1);
    });
  });

  describe('unlocks', () => {
    it('records { achievementUid, userUid } for the caller with 200', async () => {
      const achievement = await createAchievement({ name: 'Unlockable' });

      const response = await api.get<UnlockBody>(`/achievements/${achievement.uid}/unlock`, { token: player });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"0"');
      expect(response.body).toEqual({
        uid: expect.stringMatching(UUID_V4),
        achievementUid: achievement.uid,
        userUid: playerUid,
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
        version: 0,
      });
      expect(await unlockRows(achievement.uid)).toEqual([{ uid: response.body.uid, userUid: playerUid }]);
    });

    it('answers a repeated unlock with the same record, never a duplicate', async () => {
      const achievement = await createAchievement({ name: 'Once only' });

      const first = await api.get<UnlockBody>(`/achievements/${achievement.uid}/unlock`, { token: player });
      const second = await api.get<UnlockBody>(`/achievements/${achievement.uid}/unlock`, { token: player });

      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await unlockRows(achievement.uid)).toHaveLength(1);
    });

    it('makes one record of 20 concurrent unlocks of one achievement by one user', async () => {
      const achievement = await createAchievement({ name: 'Stampede' });

      const responses = await Promise.all(
        Array.from({ length: 20 }, () => api.get<UnlockBody>(`/achievements/${achievement.uid}/unlock`, { token: player })),
      );

      expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
      const uids = new Set(responses.map((response) => response.body.uid));
      expect(uids.size).toBe(1);
      for (const response of responses) {
        expect(response.body).toEqual(responses[0].body);
      }
      expect(await unlockRows(achievement.uid)).toEqual([{ uid: responses[0].body.uid, userUid: playerUid }]);
    });

    it('gives each user a record of their own', async () => {
      const achievement = await createAchievement({ name: 'Shared goal' });

      const mine = await api.get<UnlockBody>(`/achievements/${achievement.uid}/unlock`, { token: player });
      const theirs = await api.get<UnlockBody>(`/achievements/${achievement.uid}/unlock`, { token: rival });

      expect(mine.status).toBe(200);
      expect(theirs.status).toBe(200);
      expect(mine.body.userUid).toBe(playerUid);
      expect(theirs.body.userUid).toBe(rivalUid);
      expect(theirs.body.uid).not.toBe(mine.body.uid);
      expect((await unlockRows(achievement.uid)).map((row) => row.userUid).sort()).toEqual([playerUid, rivalUid].sort());
    });

    it('answers 404 to an unknown achievement and records nothing', async () => {
      const unknown = randomUUID();

      expectErrorBody(await api.get(`/achievements/${unknown}/unlock`, { token: player }), 404, 'NOT_FOUND');
      expect(await unlockRows(unknown)).toEqual([]);
    });

    it("lists only the caller's unlocks at /achievements/unlocked, with the list rules", async () => {
      const a = await createAchievement({ name: 'Listed A' });
      const b = await createAchievement({ name: 'Listed B' });
      const c = await createAchievement({ name: 'Listed C' });
      const listener = await api.signIn('listener');
      const listenerUid = decodeJwt(listener).sub!;
      const unlockedA = (await api.get<UnlockBody>(`/achievements/${a.uid}/unlock`, { token: listener })).body;
      await new Promise((resolve) => setTimeout(resolve, 15)); // so that B's unlock is the newer one
      const unlockedB = (await api.get<UnlockBody>(`/achievements/${b.uid}/unlock`, { token: listener })).body;
      await api.get(`/achievements/${c.uid}/unlock`, { token: rival });

      const all = await api.get<UnlockBody[]>('/achievements/unlocked', { token: listener });
      const newestFirst = await api.get<UnlockBody[]>(
        `/achievements/unlocked?sort=${encodeURIComponent('{"dateCreated":"DESC"}')}&limit=1`,
        {
          token: listener,
        },
      );
      const filtered = await api.get<UnlockBody[]>(`/achievements/unlocked?achievementUid=${b.uid}`, { token: listener });
      const othersFilter = await api.get<UnlockBody[]>(`/achievements/unlocked?userUid=${rivalUid}`, { token: listener });

      expect(all.status).toBe(200);
      expect(all.body).toEqual([unlockedA, unlockedB]);
      expect(all.body.every((unlock) => unlock.userUid === listenerUid)).toBe(true);
      expect(newestFirst.body).toEqual([unlockedB]);
      expect(filtered.body).toEqual([unlockedB]);
      expect(othersFilter.body).toEqual([]);
      expectValidationError(await api.get('/achievements/unlocked?limit=0', { token: listener }), 'limit');
      expectValidationError(await api.get('/achievements/unlocked?badge=x', { token: listener }), 'badge');
    });

    it("does not show other users' unlocks to an admin either: the list is the caller's", async () => {
      const achievement = await createAchievement({ name: 'Not for admins' });
      await api.get(`/achievements/${achievement.uid}/unlock`, { token: player });

      const response = await api.get<UnlockBody[]>(`/achievements/unlocked?achievementUid=${achievement.uid}`, { token: admin });

      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
    });

    it('removes the unlocks of a deleted definition', async () => {
      const achievement = await createAchievement({ name: 'Short-lived' });
      const kept = await createAchievement({ name: 'Long-lived' });
      await api.get(`/achievements/${achievement.uid}/unlock`, { token: player });
      await api.get(`/achievements/${achievement.uid}/unlock`, { token: rival });
      const keptUnlock = (await api.get<UnlockBody>(`/achievements/${kept.uid}/unlock`, { token: player })).body;
      expect(await unlockRows(achievement.uid)).toHaveLength(2);

      expect((await api.delete(`/achievements/${achievement.uid}`, { token: admin })).status).toBe(200);

      expect(await unlockRows(achievement.uid)).toEqual([]);
      const listed = await api.get<UnlockBody[]>('/achievements/unlocked?limit=1000', { token: player });
      expect(listed.body.map((unlock) => unlock.achievementUid)).not.toContain(achievement.uid);
      expect(listed.body).toContainEqual(keptUnlock);
      expectErrorBody(await api.get(`/achievements/${achievement.uid}/unlock`, { token: player }), 404, 'NOT_FOUND');
    });
  });

  describe('OpenAPI document', () => {
    it('describes every achievement route with a summary', async () => {
      const document = (await api.get('/docs-json')).body;

      const operations = [
        document.paths['/achievements'].get,
        document.paths['/achievements'].post,
        document.paths['/achievements'].delete,
        document.paths['/achievements/count'].get,
        document.paths['/achievements/unlocked'].get,
        document.paths['/achievements/{id}'].get,
        document.paths['/achievements/{id}'].put,
        document.paths['/achievements/{id}'].delete,
        document.paths['/achievements/{id}/unlock'].get,
      ];
      for (const operation of operations) expect(operation.summary).toEqual(expect.any(String));
      expect(document.paths['/achievements/{id}/unlock'].get.responses['200'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/AchievementUnlock',
      );
      expect(document.components.schemas.AchievementDefinition.properties).not.toHaveProperty('ownerUid');
    });
  });

  // Last: it empties the catalog the tests above work in.
  describe('truncate', () => {
    it('lets an admin remove every definition and every unlock with 200 and no body', async () => {
      const achievement = await createAchievement({ name: 'Swept away' });
      await api.get(`/achievements/${achievement.uid}/unlock`, { token: player });
      expect(await achievementCount()).toBeGreaterThan(1);

      const response = await api.delete('/achievements', { token: admin });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expect(await achievementCount()).toBe(0);
      expect((await api.database.query('SELECT count(*)::int AS count FROM achievement_unlocks')).rows).toEqual([{ count: 0 }]);
      expect((await api.get('/achievements/unlocked', { token: player })).body).toEqual([]);
    });
  });
});

describe('achievements with ANONYMOUS_WRITES=true', () => {
  let api: TestApp;
  let admin: string;
  let player: string;

  beforeAll(async () => {
    api = await TestApp.start({ ANONYMOUS_WRITES: 'true' });
    admin = await api.signIn('admin');
    player = await api.signIn('player-one');
  });

  afterAll(async () => {
    await api.close();
  });

  it('lets an anonymous caller create a definition with 201', async () => {
    const response = await api.post<AchievementBody>('/achievements', { name: 'Anonymously made' });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'Anonymously made', version: 0 });
    expect((await api.get<AchievementBody>(`/achievements/${response.body.uid}`, { token: player })).body).toEqual(response.body);
  });

  it('still validates an anonymous create', async () => {
    expectValidationError(await api.post('/achievements', { name: '' }), 'name');
  });

  it('still refuses a signed-in player (403) and welcomes an admin (201)', async () => {
    const before = (await api.get<CountBody>('/achievements/count')).body.count;

    expectErrorBody(await api.post('/achievements', { name: 'Player made' }, { token: player }), 403, 'FORBIDDEN');
    expect((await api.post('/achievements', { name: 'Admin made' }, { token: admin })).status).toBe(201);

    expect((await api.get<{ count: number }>('/achievements/count')).body.count).toBe(before + 1);
  });

  it('keeps the required-auth writes closed to anonymous callers', async () => {
    const created = await api.post<AchievementBody>('/achievements', { name: 'Still guarded' }, { token: admin });

    expectErrorBody(await api.put(`/achievements/${created.body.uid}`, { name: 'Renamed' }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.delete(`/achievements/${created.body.uid}`), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.delete('/achievements'), 401, 'UNAUTHORIZED');
    expect((await api.get<AchievementBody>(`/achievements/${created.body.uid}`, { token: admin })).body).toEqual(created.body);
  });
});
