import { randomUUID } from 'node:crypto';
import { TestApp } from './support/test-app.js';
import type { CountBody, ErrorResponse, ItemBody } from './support/api-types.js';
import { expectValidationError, ISO_MILLISECONDS, UUID_V4 } from './support/expectations.js';

describe('items', () => {
  let api: TestApp;
  let admin: string;
  let player: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
    player = await api.signIn('player-one');
  });

  afterAll(async () => {
    await api.close();
  });

  async function createItem(body: Record<string, unknown>): Promise<ItemBody> {
    const response = await api.post<ItemBody>('/items', body, { token: admin });
    expect(response.status).toBe(201);
    return response.body;
  }

  async function readItem(uid: string): Promise<ItemBody> {
    const response = await api.get<ItemBody>(`/items/${uid}`, { token: admin });
    expect(response.status).toBe(200);
    return response.body;
  }

  async function itemCount(): Promise<number> {
    const response = await api.get<CountBody>('/items/count', { token: admin });
    expect(response.status).toBe(200);
    return response.body.count;
  }

  describe('the six operations', () => {
    it('creates an item with 201, server-assigned fields, defaults and ETag "0"', async () => {
      const response = await api.post<ItemBody>('/items', { name: 'Iron sword' }, { token: admin });

      expect(response.status).toBe(201);
      expect(response.headers.etag).toBe('"0"');
      const item = response.body;
      expect(item.uid).toMatch(UUID_V4);
      expect(item.dateCreated).toMatch(ISO_MILLISECONDS);
      expect(item.dateModified).toMatch(ISO_MILLISECONDS);
      expect(item.version).toBe(0);
      expect(item.name).toBe('Iron sword');
      expect(item.cost).toBe(0);
      expect(item.stats).toEqual([]);
      expect(item).not.toHaveProperty('ownerUid');
    });

    it('stores every field given on create and returns it on FindById with its ETag', async () => {
      const iconAssetId = randomUUID();
      const body = {
        name: 'Ember staff',
        description: 'Warm to the touch.',
        cost: 12.5,
        stats: [
          { name: 'damage', value: 7 },
          { name: 'element', value: 'fire' },
          { name: 'twoHanded', value: true },
          { name: 'weight', value: 3.25 },
        ],
        assetId: 'staff-ember',
        iconAssetId,
      };
      const created = await createItem(body);
      expect(created).toMatchObject({ ...body, parentUID: null, version: 0 });

      const found = await api.get<ItemBody>(`/items/${created.uid}`, { token: admin });
      expect(found.status).toBe(200);
      expect(found.headers.etag).toBe('"0"');
      expect(found.body).toEqual(created);
    });

    it('lets any signed-in player list items as a bare JSON array', async () => {
      const created = await createItem({ name: 'Listed lantern' });

      const response = await api.get<ItemBody[]>('/items', { token: player });

      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      expect(response.body).toContainEqual(created);
    });

    it('counts items as { count } matching the number listed', async () => {
      await createItem({ name: 'Counted coin' });

      const count = await api.get<CountBody>('/items/count', { token: player });
      const list = await api.get<ItemBody[]>('/items', { token: player });

      expect(count.status).toBe(200);
      expect(count.body).toEqual({ count: list.body.length });
      expect(count.body.count).toBeGreaterThan(0);
    });

    it('lets a player read one item by id', async () => {
      const created = await createItem({ name: 'Public pebble' });

      const response = await api.get<ItemBody>(`/items/${created.uid}`, { token: player });

      expect(response.status).toBe(200);
      expect(response.body).toEqual(created);
    });

    it('merges an update: absent fields are kept, the version goes up by one and the ETag follows', async () => {
      const created = await createItem({
        name: 'Leather cap',
        description: 'Better than nothing.',
        cost: 3,
        stats: [{ name: 'armour', value: 1 }],
        assetId: 'cap-leather',
      });

      const response = await api.put<ItemBody>(`/items/${created.uid}`, { cost: 4 }, { token: admin });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"1"');
      expect(response.body).toEqual({
        ...created,
        cost: 4,
        version: 1,
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
      });
      expect(Date.parse(response.body.dateModified)).toBeGreaterThanOrEqual(Date.parse(created.dateModified));

      const found = await api.get<ItemBody>(`/items/${created.uid}`, { token: admin });
      expect(found.headers.etag).toBe('"1"');
      expect(found.body).toEqual(response.body);
    });

    it('replaces the stats array and clears nullable fields with null on update', async () => {
      const created = await createItem({
        name: 'Oak shield',
        description: 'Round.',
        stats: [{ name: 'armour', value: 2 }],
        assetId: 'shield-oak',
      });

      const response = await api.put<ItemBody>(
        `/items/${created.uid}`,
        { stats: [{ name: 'block', value: 0.25 }], description: null, assetId: null },
        { token: admin },
      );

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        name: 'Oak shield',
        stats: [{ name: 'block', value: 0.25 }],
        description: null,
        assetId: null,
        version: 1,
      });
      expect(await readItem(created.uid)).toEqual(response.body);
    });

    it('lists an item as FindById answers it, without its internal owner, on a whole page and a filtered one', async () => {
      const created = await createItem({
        name: 'Listed lantern',
        description: 'Burns blue.',
        cost: 3,
        stats: [{ name: 'light', value: 4 }],
      });
      const found = (await api.get<ItemBody>(`/items/${created.uid}`, { token: admin })).body;

      const whole = await api.get<ItemBody[]>('/items?limit=1000', { token: admin });
      const filtered = await api.get<ItemBody[]>('/items?name=Listed%20lantern', { token: admin });

      expect(whole.status).toBe(200);
      expect(filtered.status).toBe(200);
      for (const page of [whole.body, filtered.body]) {
        const listed = page.find((item) => item.uid === created.uid);
        expect(listed).toEqual(found);
        expect(listed).not.toHaveProperty('ownerUid');
      }
    });

    it('deletes with 200 and no body; the item is then 404', async () => {
      const created = await createItem({ name: 'Doomed dagger' });

      const response = await api.delete(`/items/${created.uid}`, { token: admin });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      const found = await api.get<ErrorResponse>(`/items/${created.uid}`, { token: admin });
      expect(found.status).toBe(404);
      expect(found.body.code).toBe('NOT_FOUND');
      const again = await api.delete<ErrorResponse>(`/items/${created.uid}`, { token: admin });
      expect(again.status).toBe(404);
      const list = await api.get<ItemBody[]>('/items?limit=1000', { token: admin });
      expect(list.body.map((item) => item.uid)).not.toContain(created.uid);
    });

    it('accepts a DELETE that sends Content-Type: application/json without a body', async () => {
      const created = await createItem({ name: 'Quietly deleted' });

      const response = await api.delete(`/items/${created.uid}`, {
        token: admin,
        headers: { 'content-type': 'application/json' },
      });

      expect(response.status).toBe(200);
      expect((await api.get(`/items/${created.uid}`, { token: admin })).status).toBe(404);
    });
  });

  describe('catalog rules', () => {
    it('refuses a player creating an item with 403 and creates nothing', async () => {
      const before = await itemCount();

      const response = await api.post<ErrorResponse>('/items', { name: 'Forged gold' }, { token: player });

      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
      expect(await itemCount()).toBe(before);
      const list = await api.get<ItemBody[]>('/items?name=Forged%20gold', { token: admin });
      expect(list.body).toEqual([]);
    });

    it('refuses a player updating an item with 403 and leaves it unchanged', async () => {
      const created = await createItem({ name: 'Guarded gem', cost: 100 });

      const response = await api.put<ErrorResponse>(`/items/${created.uid}`, { cost: 0 }, { token: player });

      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
      expect(await readItem(created.uid)).toEqual(created);
    });

    it('refuses a player deleting an item with 403 and keeps it', async () => {
      const created = await createItem({ name: 'Sturdy anvil' });

      const response = await api.delete<ErrorResponse>(`/items/${created.uid}`, { token: player });

      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
      expect(await readItem(created.uid)).toEqual(created);
    });

    it('answers 401 on every item route without a token, and changes nothing', async () => {
      const created = await createItem({ name: 'Anonymous target' });
      const before = await itemCount();

      const responses = [
        await api.get<ErrorResponse>('/items'),
        await api.get<ErrorResponse>('/items/count'),
        await api.get<ErrorResponse>(`/items/${created.uid}`),
        await api.post<ErrorResponse>('/items', { name: 'Sneaky' }),
        await api.put<ErrorResponse>(`/items/${created.uid}`, { name: 'Renamed' }),
        await api.delete<ErrorResponse>(`/items/${created.uid}`),
      ];

      for (const response of responses) {
        expect(response.status).toBe(401);
        expect(response.body.code).toBe('UNAUTHORIZED');
      }
      expect(await itemCount()).toBe(before);
      expect(await readItem(created.uid)).toEqual(created);
    });

    it('answers 401 to an invalid token', async () => {
      const response = await api.get<ErrorResponse>('/items', { token: 'not-a-token' });

      expect(response.status).toBe(401);
      expect(response.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('validation', () => {
    it.each([
      ['no name', { cost: 1 }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a null name', { name: null }, 'name'],
      ['a negative cost', { name: 'Cheap', cost: -1 }, 'cost'],
      ['a cost sent as a string', { name: 'Stringy', cost: '5' }, 'cost'],
      ['a stat whose value is an object', { name: 'Odd', stats: [{ name: 'power', value: { level: 3 } }] }, 'stats.0.value'],
      ['a stat without a name', { name: 'Nameless stat', stats: [{ value: 3 }] }, 'stats.0.name'],
      ['stats that are not an array', { name: 'Flat', stats: 'power' }, 'stats'],
      ['a malformed iconAssetId', { name: 'Iconic', iconAssetId: 'icon.png' }, 'iconAssetId'],
      ['a malformed parentUID', { name: 'Orphan', parentUID: 'nobody' }, 'parentUID'],
      ['an unknown field', { name: 'Colourful', colour: 'red' }, 'colour'],
    ])('refuses a create with %s: 400 naming the field, nothing created', async (_case, body, field) => {
      const before = await itemCount();

      const response = await api.post<ErrorResponse>('/items', body, { token: admin });

      expectValidationError(response, field);
      expect(await itemCount()).toBe(before);
    });

    it.each([
      ['a null name', { name: null }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a null cost', { cost: null }, 'cost'],
      ['a negative cost', { cost: -1 }, 'cost'],
      ['a cost sent as a string', { cost: '5' }, 'cost'],
      ['a stat whose value is an object', { stats: [{ name: 'power', value: { level: 3 } }] }, 'stats.0.value'],
      ['null stats', { stats: null }, 'stats'],
      ['an unknown field', { colour: 'red' }, 'colour'],
      ['a version that is not an integer', { version: 'latest' }, 'version'],
    ])('refuses an update with %s: 400 naming the field, item unchanged', async (_case, body, field) => {
      const created = await createItem({ name: 'Steady stone', cost: 2, stats: [{ name: 'mass', value: 9 }] });

      const response = await api.put<ErrorResponse>(`/items/${created.uid}`, body, { token: admin });

      expectValidationError(response, field);
      expect(await readItem(created.uid)).toEqual(created);
    });

    it('refuses a body that is not valid JSON with 400', async () => {
      const before = await itemCount();

      const response = await api.post<ErrorResponse>('/items', '{"name": "Broken', { token: admin });

      expect(response.status).toBe(400);
      expect(response.body.status).toBe(400);
      expect(await itemCount()).toBe(before);
    });

    it('refuses a body that is a JSON array with 400', async () => {
      const response = await api.post<ErrorResponse>('/items', [{ name: 'Listy' }], { token: admin });

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    });

    it('accepts a record read back whole (uid, dates, version) with a change', async () => {
      const created = await createItem({ name: 'Round trip ring', cost: 5 });
      const read = await readItem(created.uid);

      const response = await api.put<ItemBody>(`/items/${created.uid}`, { ...read, name: 'Round trip ring +1' }, { token: admin });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        uid: created.uid,
        name: 'Round trip ring +1',
        cost: 5,
        version: 1,
        dateCreated: created.dateCreated,
      });
    });

    it('ignores read-only dates sent on update', async () => {
      const created = await createItem({ name: 'Timeless totem' });

      const response = await api.put<ItemBody>(
        `/items/${created.uid}`,
        { uid: created.uid, dateCreated: '2000-01-01T00:00:00.000Z', dateModified: '2000-01-01T00:00:00.000Z', cost: 1 },
        { token: admin },
      );

      expect(response.status).toBe(200);
      expect(response.body.dateCreated).toBe(created.dateCreated);
      expect(response.body.dateModified).not.toBe('2000-01-01T00:00:00.000Z');
      expect(response.body.cost).toBe(1);
    });

    it('ignores read-only fields sent on create', async () => {
      const uid = randomUUID();

      const response = await api.post<ItemBody>(
        '/items',
        { uid, version: 7, dateCreated: '2000-01-01T00:00:00.000Z', name: 'Fresh flask' },
        { token: admin },
      );

      expect(response.status).toBe(201);
      expect(response.body.uid).not.toBe(uid);
      expect(response.body.version).toBe(0);
      expect(response.body.dateCreated).not.toBe('2000-01-01T00:00:00.000Z');
    });

    it('refuses an update whose body names a different uid, and changes nothing', async () => {
      const created = await createItem({ name: 'Mistaken identity' });

      const response = await api.put<ErrorResponse>(`/items/${created.uid}`, { uid: randomUUID(), name: 'Someone else' }, { token: admin });

      expectValidationError(response, 'uid');
      expect(await readItem(created.uid)).toEqual(created);
    });
  });

  describe('parent items', () => {
    it('creates an item under an existing parent', async () => {
      const parent = await createItem({ name: 'Base bow' });

      const child = await createItem({ name: 'Composite bow', parentUID: parent.uid });

      expect(child.parentUID).toBe(parent.uid);
      expect((await readItem(child.uid)).parentUID).toBe(parent.uid);
    });

    it('refuses a parentUID that names no item, on create and on update', async () => {
      const before = await itemCount();
      const created = await api.post<ErrorResponse>('/items', { name: 'Lost child', parentUID: randomUUID() }, { token: admin });
      expectValidationError(created, 'parentUID');
      expect(await itemCount()).toBe(before);

      const item = await createItem({ name: 'Would-be child' });
      const updated = await api.put<ErrorResponse>(`/items/${item.uid}`, { parentUID: randomUUID() }, { token: admin });
      expectValidationError(updated, 'parentUID');
      expect(await readItem(item.uid)).toEqual(item);
    });

    it('refuses an item as its own parent', async () => {
      const item = await createItem({ name: 'Ouroboros' });

      const response = await api.put<ErrorResponse>(`/items/${item.uid}`, { parentUID: item.uid }, { token: admin });

      expectValidationError(response, 'parentUID');
      expect(await readItem(item.uid)).toEqual(item);
    });

    it('refuses a parent link that would close a cycle A→B→A', async () => {
      const a = await createItem({ name: 'Chicken' });
      const b = await createItem({ name: 'Egg' });
      const linked = await api.put<ItemBody>(`/items/${a.uid}`, { parentUID: b.uid }, { token: admin });
      expect(linked.status).toBe(200);
      expect(linked.body.parentUID).toBe(b.uid);

      const response = await api.put<ErrorResponse>(`/items/${b.uid}`, { parentUID: a.uid }, { token: admin });

      expectValidationError(response, 'parentUID');
      expect(await readItem(b.uid)).toEqual(b);
      expect((await readItem(a.uid)).parentUID).toBe(b.uid);
    });

    it('refuses a parent link that would close a longer cycle A→B→C→A', async () => {
      const a = await createItem({ name: 'Rock' });
      const b = await createItem({ name: 'Paper', parentUID: a.uid });
      const c = await createItem({ name: 'Scissors', parentUID: b.uid });

      const response = await api.put<ErrorResponse>(`/items/${a.uid}`, { parentUID: c.uid }, { token: admin });

      expectValidationError(response, 'parentUID');
      expect(await readItem(a.uid)).toEqual(a);
    });

    it('clears the parent when parentUID is null', async () => {
      const parent = await createItem({ name: 'Old master' });
      const child = await createItem({ name: 'Apprentice', parentUID: parent.uid });

      const response = await api.put<ItemBody>(`/items/${child.uid}`, { parentUID: null }, { token: admin });

      expect(response.status).toBe(200);
      expect(response.body.parentUID).toBeNull();
      expect(response.body.version).toBe(1);
      expect((await readItem(child.uid)).parentUID).toBeNull();
    });

    it('refuses to delete a parent that has children with 409 and deletes nothing', async () => {
      const parent = await createItem({ name: 'Family tree' });
      const child = await createItem({ name: 'Branch', parentUID: parent.uid });
      const before = await itemCount();

      const response = await api.delete<ErrorResponse>(`/items/${parent.uid}`, { token: admin });

      expect(response.status).toBe(409);
      expect(response.body.status).toBe(409);
      expect(typeof response.body.code).toBe('string');
      expect(await itemCount()).toBe(before);
      expect(await readItem(parent.uid)).toEqual(parent);
      expect(await readItem(child.uid)).toEqual(child);

      expect((await api.delete(`/items/${child.uid}`, { token: admin })).status).toBe(200);
      expect((await api.delete(`/items/${parent.uid}`, { token: admin })).status).toBe(200);
    });
  });

  describe('ids in paths', () => {
    it.each(['not-a-uuid', '12345', 'ffffffff-ffff-ffff-ffff-fffffffffffff'])(
      'answers 400 to the malformed id %s on find, update and delete',
      async (id) => {
        const responses = [
          await api.get<ErrorResponse>(`/items/${id}`, { token: admin }),
          await api.put<ErrorResponse>(`/items/${id}`, { cost: 1 }, { token: admin }),
          await api.delete<ErrorResponse>(`/items/${id}`, { token: admin }),
        ];
        for (const response of responses) expectValidationError(response, 'id');
      },
    );

    it('answers 404 to an unknown id on find, update and delete', async () => {
      const id = randomUUID();
      const responses = [
        await api.get<ErrorResponse>(`/items/${id}`, { token: admin }),
        await api.put<ErrorResponse>(`/items/${id}`, { cost: 1 }, { token: admin }),
        await api.put<ErrorResponse>(`/items/${id}`, { cost: 1, version: 0 }, { token: admin }),
        await api.delete<ErrorResponse>(`/items/${id}`, { token: admin }),
      ];
      for (const response of responses) {
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('NOT_FOUND');
      }
    });
  });

  describe('versions', () => {
    it('refuses a stale version in the body with 409 VERSION_CONFLICT and changes nothing', async () => {
      const created = await createItem({ name: 'Contested crown', cost: 10 });
      const first = await api.put<ItemBody>(`/items/${created.uid}`, { cost: 11, version: 0 }, { token: admin });
      expect(first.status).toBe(200);
      expect(first.body.version).toBe(1);

      const stale = await api.put<ErrorResponse>(
        `/items/${created.uid}`,
        { cost: 99, name: 'Usurped crown', version: 0 },
        { token: admin },
      );

      expect(stale.status).toBe(409);
      expect(stale.body.code).toBe('VERSION_CONFLICT');
      expect(stale.body.currentVersion).toBe(1);
      const found = await readItem(created.uid);
      expect(found).toEqual(first.body);
      expect(found).toMatchObject({ name: 'Contested crown', cost: 11, version: 1 });
    });

    it('treats If-Match: "N" like a version in the body', async () => {
      const created = await createItem({ name: 'Matched mace', cost: 1 });
      const first = await api.put<ItemBody>(`/items/${created.uid}`, { cost: 2 }, { token: admin, headers: { 'if-match': '"0"' } });
      expect(first.status).toBe(200);
      expect(first.body.version).toBe(1);
      expect(first.headers.etag).toBe('"1"');

      const stale = await api.put<ErrorResponse>(`/items/${created.uid}`, { cost: 3 }, { token: admin, headers: { 'if-match': '"0"' } });

      expect(stale.status).toBe(409);
      expect(stale.body.code).toBe('VERSION_CONFLICT');
      expect(stale.body.currentVersion).toBe(1);
      expect(await readItem(created.uid)).toEqual(first.body);

      const fresh = await api.put<ItemBody>(`/items/${created.uid}`, { cost: 3 }, { token: admin, headers: { 'if-match': '"1"' } });
      expect(fresh.status).toBe(200);
      expect(fresh.body).toMatchObject({ cost: 3, version: 2 });
    });

    it('accepts the ETag of a read as If-Match for the next write', async () => {
      const created = await createItem({ name: 'Etched edge' });
      const read = await api.get<ItemBody>(`/items/${created.uid}`, { token: admin });

      const response = await api.put<ItemBody>(
        `/items/${created.uid}`,
        { cost: 8 },
        { token: admin, headers: { 'if-match': String(read.headers.etag) } },
      );

      expect(response.status).toBe(200);
      expect(response.body.version).toBe(1);
    });

    it('refuses a body version that disagrees with If-Match with 400 and changes nothing', async () => {
      const created = await createItem({ name: 'Two-faced tome' });

      const response = await api.put<ErrorResponse>(
        `/items/${created.uid}`,
        { cost: 5, version: 0 },
        { token: admin, headers: { 'if-match': '"1"' } },
      );

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(await readItem(created.uid)).toEqual(created);
    });

    it('accepts a body version and If-Match that agree', async () => {
      const created = await createItem({ name: 'Agreeable amulet' });

      const response = await api.put<ItemBody>(
        `/items/${created.uid}`,
        { cost: 5, version: 0 },
        { token: admin, headers: { 'if-match': '"0"' } },
      );

      expect(response.status).toBe(200);
      expect(response.body.version).toBe(1);
    });

    it('refuses a malformed If-Match with 400', async () => {
      const created = await createItem({ name: 'Garbled glyph' });

      const response = await api.put<ErrorResponse>(
        `/items/${created.uid}`,
        { cost: 5 },
        { token: admin, headers: { 'if-match': 'banana' } },
      );

      expect(response.status).toBe(400);
      expect(await readItem(created.uid)).toEqual(created);
    });

    it('applies a write that states no version to the current record', async () => {
      const created = await createItem({ name: 'Carefree cloak', cost: 1 });
      expect((await api.put(`/items/${created.uid}`, { cost: 2 }, { token: admin })).status).toBe(200);
      expect((await api.put(`/items/${created.uid}`, { cost: 3 }, { token: admin })).status).toBe(200);

      const response = await api.put<ItemBody>(`/items/${created.uid}`, { name: 'Carefree cape' }, { token: admin });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ name: 'Carefree cape', cost: 3, version: 3 });
      expect(response.headers.etag).toBe('"3"');
    });

    it('lets exactly one of 20 concurrent writes stating version 0 win', async () => {
      const created = await createItem({ name: 'Race trophy', cost: 0 });

      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          api.put<ItemBody & ErrorResponse>(`/items/${created.uid}`, { cost: index + 1, version: 0 }, { token: admin }),
        ),
      );

      const winners = responses.filter((response) => response.status === 200);
      const losers = responses.filter((response) => response.status === 409);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(19);
      for (const loser of losers) {
        expect(loser.body.code).toBe('VERSION_CONFLICT');
        expect(loser.body.currentVersion).toBe(1);
      }
      const final = await readItem(created.uid);
      expect(final.version).toBe(1);
      expect(final.cost).toBe(winners[0].body.cost);
    });
  });

  describe('numbers', () => {
    it('returns cost and numeric stat values as JSON numbers everywhere', async () => {
      const created = await createItem({ name: 'Fractional flute', cost: 12.5, stats: [{ name: 'pitch', value: 440.5 }] });
      expect(created.cost).toBe(12.5);
      expect(created.stats[0].value).toBe(440.5);

      const found = await readItem(created.uid);
      expect(found.cost).toBe(12.5);
      expect(found.version).toBe(0);

      const listed = await api.get<ItemBody[]>(`/items?uid=${created.uid}`, { token: admin });
      expect(listed.body).toHaveLength(1);
      expect(listed.body[0].cost).toBe(12.5);

      const updated = await api.put<ItemBody>(`/items/${created.uid}`, { cost: 0.75 }, { token: admin });
      expect(updated.body.cost).toBe(0.75);
      expect(updated.body.version).toBe(1);
      expect(typeof (await api.get<{ count: number }>('/items/count', { token: admin })).body.count).toBe('number');
    });
  });
});
