import type { OpenAPIObject } from '@nestjs/swagger';
import type { ErrorResponse, StorageAcksBody, StorageObjectBody, StorageObjectsBody, StoragePageBody } from './support/api-types.js';
import { expectErrorBody, expectValidationError, ISO_MILLISECONDS } from './support/expectations.js';
import { RealtimeClient } from './support/realtime-client.js';
import { eventDataSchema, shapeProblems } from './support/schema-shape.js';
import { type SignedInPlayer, TestApp, type TestResponse } from './support/test-app.js';

/**
 * Cloud save (issue 29; docs/GUIDE.md, "Cloud save"): storage objects written and deleted in batches
 * that commit whole or not at all, versions that are hashes of the values, permissions for every kind
 * of caller, published limits and quotas that hold under concurrent batches, and `storage.updated` to
 * the owner's sockets.
 */

const VERSION = /^[0-9a-f]{32}$/;

interface Write {
  collection: string;
  key: string;
  value: unknown;
  version?: string;
  permissionRead?: 'NONE' | 'OWNER' | 'PUBLIC';
  permissionWrite?: 'NONE' | 'OWNER';
  ownerUid?: string;
}

type Ref = { collection: string; key: string; ownerUid?: string; version?: string };

/** A JSON object whose compact JSON is exactly `bytes` long (at least 8). */
const valueOfBytes = (bytes: number) => ({ d: 'x'.repeat(bytes - '{"d":""}'.length) });

describe('cloud save', () => {
  let api: TestApp;
  let admin: SignedInPlayer;
  let serial = 0;
  /** A collection no other test writes. */
  const fresh = (label = 'c') => `${label}-${++serial}`;

  beforeAll(async () => {
    api = await TestApp.start({}, { listen: true });
    admin = await api.signInPlayer('admin');
  });

  afterAll(async () => {
    await api.close();
  });

  const put = (token: string | undefined, objects: Write[]) => api.put<StorageAcksBody & ErrorResponse>('/storage', { objects }, { token });
  const read = (token: string | undefined, objects: Ref[]) =>
    api.post<StorageObjectsBody & ErrorResponse>('/storage/read', { objects }, { token });
  const remove = (token: string | undefined, objects: Ref[]) =>
    api.request<ErrorResponse>('DELETE', '/storage', { token, body: { objects } });

  /** A write that must succeed: its acks. */
  async function written(token: string, objects: Write[]): Promise<StorageAcksBody['acks']> {
    const response = await put(token, objects);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { acks: expect.any(Array) } });
    return response.body.acks;
  }

  /** What the database holds of an owner's collection: key → value, version, permissions. */
  async function stored(ownerUid: string, collection: string) {
    const { rows } = await api.database.query<{
      key: string;
      value: unknown;
      version: string;
      permissionRead: string;
      permissionWrite: string;
    }>(
      `SELECT key, value, version, "permissionRead", "permissionWrite" FROM storage_objects WHERE "ownerUid" = $1 AND collection = $2 ORDER BY key`,
      [ownerUid, collection],
    );
    return rows;
  }

  /** The owner's usage row, and what their objects actually add up to. */
  async function usageOf(ownerUid: string) {
    const { rows } = await api.database.query<{
      kept: { objects: number; bytes: number } | null;
      actual: { objects: number; bytes: number };
    }>(
      `SELECT (SELECT json_build_object('objects', objects, 'bytes', bytes) FROM storage_usage WHERE "ownerUid" = $1) AS kept,
              (SELECT json_build_object('objects', count(*), 'bytes', coalesce(sum(size), 0)) FROM storage_objects WHERE "ownerUid" = $1) AS actual`,
      [ownerUid],
    );
    return rows[0];
  }

  describe('writing and reading', () => {
    it('writes a batch, answers each version in order, and reads the objects back with their fields and ETag', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh('saves');
      const acks = await written(alice.token, [
        { collection, key: 'slot-1', value: { level: 3, checkpoint: 'harbour', inventory: ['sword', 'potion'] } },
        { collection, key: 'slot-2', value: { level: 1 }, permissionRead: 'PUBLIC' },
      ]);
      expect(acks).toEqual([
        { collection, key: 'slot-1', ownerUid: alice.uid, version: expect.stringMatching(VERSION) },
        { collection, key: 'slot-2', ownerUid: alice.uid, version: expect.stringMatching(VERSION) },
      ]);

      const response = await read(alice.token, [
        { collection, key: 'slot-2' },
        { collection, key: 'slot-1', ownerUid: alice.uid.toUpperCase() },
        { collection, key: 'never-written' },
      ]);
      expect(response.status).toBe(200);
      expect(response.body.objects).toEqual([
        {
          ownerUid: alice.uid,
          collection,
          key: 'slot-2',
          value: { level: 1 },
          version: acks[1].version,
          permissionRead: 'PUBLIC',
          permissionWrite: 'OWNER',
          dateCreated: expect.stringMatching(ISO_MILLISECONDS),
          dateModified: expect.stringMatching(ISO_MILLISECONDS),
        },
        expect.objectContaining({ key: 'slot-1', version: acks[0].version, permissionRead: 'OWNER', permissionWrite: 'OWNER' }),
      ]);

      const one = await api.get<StorageObjectBody>(`/storage/${collection}/slot-1`, { token: alice.token });
      expect(one.status).toBe(200);
      expect(one.headers.etag).toBe(`"${acks[0].version}"`);
      expect(one.body.value).toEqual({ level: 3, checkpoint: 'harbour', inventory: ['sword', 'potion'] });
      expect((await api.get(`/storage/${collection}/slot-3`, { token: alice.token })).status).toBe(404);
    });

    it('derives the version from the value alone: the same value, in any key order, has the same version', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh();
      const [first] = await written(alice.token, [{ collection, key: 'k', value: { a: 1, b: { c: [1, 2] } } }]);
      const [other] = await written(alice.token, [{ collection, key: 'k2', value: { b: { c: [1, 2] }, a: 1 } }]);
      const [changed] = await written(alice.token, [{ collection, key: 'k', value: { a: 2, b: { c: [1, 2] } } }]);
      const [back] = await written(alice.token, [{ collection, key: 'k', value: { a: 1, b: { c: [1, 2] } } }]);
      expect(other.version).toBe(first.version);
      expect(changed.version).not.toBe(first.version);
      expect(back.version).toBe(first.version);
    });

    it('replaces a whole object, keeps its creation date and its permissions unless the write states others', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh();
      await written(alice.token, [{ collection, key: 'k', value: { a: 1, b: 2 }, permissionRead: 'PUBLIC' }]);
      const [before] = (await read(alice.token, [{ collection, key: 'k' }])).body.objects;
      await written(alice.token, [{ collection, key: 'k', value: { c: 3 } }]);
      const [after] = (await read(alice.token, [{ collection, key: 'k' }])).body.objects;
      expect(after).toMatchObject({ value: { c: 3 }, permissionRead: 'PUBLIC', dateCreated: before.dateCreated });
      expect(after.dateModified >= before.dateModified).toBe(true);
      // An object read may be sent back whole: its read-only fields are ignored.
      const { version: _version, ...sentBack } = after;
      await written(alice.token, [{ ...sentBack, value: { d: 4 }, permissionRead: 'OWNER' }]);
      expect(await stored(alice.uid, collection)).toEqual([expect.objectContaining({ value: { d: 4 }, permissionRead: 'OWNER' })]);
    });
  });

  describe('conditional writes', () => {
    it('creates with "*" only while the object is absent, and replaces with a version only while it holds', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh();
      const [created] = await written(alice.token, [{ collection, key: 'k', value: { n: 1 }, version: '*' }]);

      const again = await put(alice.token, [{ collection, key: 'k', value: { n: 2 }, version: '*' }]);
      expectErrorBody(again, 409, 'VERSION_CONFLICT');
      expect(again.body.storageObject).toEqual({ collection, key: 'k', ownerUid: alice.uid, currentVersion: created.version });
      expect(again.body.errors).toEqual([{ field: 'objects.0.version', message: `the object is at version ${created.version}` }]);

      const [replaced] = await written(alice.token, [{ collection, key: 'k', value: { n: 3 }, version: created.version }]);
      const stale = await put(alice.token, [{ collection, key: 'k', value: { n: 4 }, version: created.version }]);
      expectErrorBody(stale, 409, 'VERSION_CONFLICT');
      expect(stale.body.storageObject?.currentVersion).toBe(replaced.version);

      const absent = await put(alice.token, [{ collection, key: 'gone', value: { n: 5 }, version: replaced.version }]);
      expectErrorBody(absent, 409, 'VERSION_CONFLICT');
      expect(absent.body.storageObject?.currentVersion).toBeNull();
      expect(await stored(alice.uid, collection)).toEqual([expect.objectContaining({ key: 'k', value: { n: 3 } })]);
    });

    it('lets exactly one of two devices racing from the same version win; the other gets 409 with the version now', async () => {
      const alice = await api.newPlayer('alice');
      const [phone, laptop] = [alice.token, await api.signIn(alice.name)];
      const collection = fresh();
      for (let round = 0; round < 10; round++) {
        const [base] = await written(phone, [{ collection, key: 'save', value: { round, device: 'both' } }]);
        const answers = await Promise.all(
          [phone, laptop].map((token, device) =>
            put(token, [{ collection, key: 'save', value: { round, device }, version: base.version }]),
          ),
        );
        const winners = answers.filter((answer) => answer.status === 200);
        const losers = answers.filter((answer) => answer.status !== 200);
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(1);
        expectErrorBody(losers[0], 409, 'VERSION_CONFLICT');
        expect(losers[0].body.storageObject?.currentVersion).toBe(winners[0].body.acks[0].version);
        const [now] = await stored(alice.uid, collection);
        expect(now.version).toBe(winners[0].body.acks[0].version);
      }
    });
  });

  describe('a batch is all or nothing', () => {
    async function refusedBatch(player: SignedInPlayer, collection: string, bad: Write, status: number, code: string) {
      const before = await stored(player.uid, collection);
      const usage = await usageOf(player.uid);
      const response = await put(player.token, [
        { collection, key: 'a', value: { n: 10 } },
        { collection, key: 'new-1', value: { n: 20 } },
        { collection, key: 'new-2', value: { n: 30 } },
        bad,
        { collection, key: 'new-3', value: { n: 50 } },
      ]);
      expectErrorBody(response, status, code);
      expect(await stored(player.uid, collection)).toEqual(before);
      expect(await usageOf(player.uid)).toEqual(usage);
      return response;
    }

    it('writes none of a batch in which one object has a stale version, a protected permission or a value too large', async () => {
      const player = await api.newPlayer('player');
      const collection = fresh();
      const [, b] = await written(player.token, [
        { collection, key: 'a', value: { n: 1 } },
        { collection, key: 'b', value: { n: 2 } },
      ]);
      await written(admin.token, [{ collection, key: 'locked', value: { n: 3 }, permissionWrite: 'NONE', ownerUid: player.uid }]);

      const conflict = await refusedBatch(
        player,
        collection,
        { collection, key: 'b', value: { n: 40 }, version: '0'.repeat(32) },
        409,
        'VERSION_CONFLICT',
      );
      expect(conflict.body.storageObject).toEqual({ collection, key: 'b', ownerUid: player.uid, currentVersion: b.version });
      expect(conflict.body.errors).toEqual([{ field: 'objects.3.version', message: `the object is at version ${b.version}` }]);

      const locked = await refusedBatch(player, collection, { collection, key: 'locked', value: { n: 40 } }, 403, 'FORBIDDEN');
      expect(locked.body.storageObject).toEqual({ collection, key: 'locked', ownerUid: player.uid });

      const large = await refusedBatch(player, collection, { collection, key: 'c', value: valueOfBytes(65_537) }, 413, 'PAYLOAD_TOO_LARGE');
      expect(large.body.errors).toEqual([
        { field: 'objects.3.value', message: 'is 65537 bytes of JSON, more than the 65536 a value may take' },
      ]);

      const named = await refusedBatch(player, collection, { collection, key: 'a', value: { n: 0 } }, 400, 'VALIDATION_FAILED');
      expect(named.body.errors).toEqual([{ field: 'objects.3', message: 'names an object the batch names already' }]);
    });
  });

  describe('permissions', () => {
    type Role = 'owner' | 'other' | 'admin' | 'anonymous';
    let players: Record<Exclude<Role, 'anonymous'>, SignedInPlayer>;
    const tokenOf = (role: Role) => (role === 'anonymous' ? undefined : players[role].token);
    const collection = 'permissions';

    beforeAll(async () => {
      players = { owner: await api.newPlayer('owner'), other: await api.newPlayer('other'), admin };
      const ownerUid = players.owner.uid;
      await written(admin.token, [
        { collection, key: 'read-NONE', value: { secret: true }, permissionRead: 'NONE', ownerUid },
        { collection, key: 'read-OWNER', value: { mine: true }, ownerUid },
        { collection, key: 'read-PUBLIC', value: { shared: true }, permissionRead: 'PUBLIC', ownerUid },
      ]);
    });

    // Which object each caller reads: 'sees' and 'absent' for the reads, 401 for anonymous callers.
    // prettier-ignore
    const READS: Array<[Role, 'NONE' | 'OWNER' | 'PUBLIC', 'sees' | 'absent' | 401]> = [
      ['owner', 'NONE', 'absent'], ['owner', 'OWNER', 'sees'],   ['owner', 'PUBLIC', 'sees'],
      ['other', 'NONE', 'absent'], ['other', 'OWNER', 'absent'], ['other', 'PUBLIC', 'sees'],
      ['admin', 'NONE', 'sees'],   ['admin', 'OWNER', 'sees'],   ['admin', 'PUBLIC', 'sees'],
      ['anonymous', 'NONE', 401],  ['anonymous', 'OWNER', 401],  ['anonymous', 'PUBLIC', 401],
    ];

    it.each(READS)('%s reading a %s object: %s (batch read, one object, list)', async (role, permission, expected) => {
      const token = tokenOf(role);
      const key = `read-${permission}`;
      const ownerUid = players.owner.uid;
      const batch = await read(token, [{ collection, key, ownerUid }]);
      const one = await api.get(`/storage/${collection}/${key}?ownerUid=${ownerUid}`, { token });
      const list = await api.get<StoragePageBody>(`/storage/${collection}?ownerUid=${ownerUid}`, { token });
      if (expected === 401) {
        for (const response of [batch, one, list]) expectErrorBody(response, 401, 'UNAUTHORIZED');
        return;
      }
      expect(batch.body.objects.map((object) => object.key)).toEqual(expected === 'sees' ? [key] : []);
      expect(one.status).toBe(expected === 'sees' ? 200 : 404);
      expect(list.body.objects.some((object) => object.key === key)).toBe(expected === 'sees');
    });

    // Writes and deletes of the owner's objects: their own (OWNER), a protected one (NONE).
    // prettier-ignore
    const WRITES: Array<[Role, 'NONE' | 'OWNER', number]> = [
      ['owner', 'OWNER', 200], ['owner', 'NONE', 403],
      ['other', 'OWNER', 403], ['other', 'NONE', 403],
      ['admin', 'OWNER', 200], ['admin', 'NONE', 200],
      ['anonymous', 'OWNER', 401], ['anonymous', 'NONE', 401],
    ];

    it.each(WRITES)('%s writing and deleting a permissionWrite %s object: %s', async (role, permission, expected) => {
      const key = `write-${permission}-${role}`;
      const ownerUid = players.owner.uid;
      await written(admin.token, [{ collection, key, value: { n: 0 }, permissionWrite: permission, ownerUid }]);
      const before = await stored(ownerUid, collection);

      const write = await put(tokenOf(role), [{ collection, key, value: { n: 1 }, ownerUid }]);
      const deletion = await remove(tokenOf(role), [{ collection, key, ownerUid }]);
      if (expected === 200) {
        expect([write.status, deletion.status]).toEqual([200, 204]);
        expect((await stored(ownerUid, collection)).some((object) => object.key === key)).toBe(false);
      } else {
        expectErrorBody(write, expected, expected === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN');
        expectErrorBody(deletion, expected, expected === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN');
        expect(await stored(ownerUid, collection)).toEqual(before);
      }
    });

    it("lets only admins set NONE, and only admins change another player's storage", async () => {
      const player = await api.newPlayer('player');
      for (const permissions of [{ permissionRead: 'NONE' }, { permissionWrite: 'NONE' }] as const) {
        const response = await put(player.token, [{ collection: 'c', key: 'k', value: {}, ...permissions }]);
        expectErrorBody(response, 403, 'FORBIDDEN');
        expect(response.body.message).toContain(`objects.0.${Object.keys(permissions)[0]}: only admins set NONE`);
      }
      expectErrorBody(await put(player.token, [{ collection: 'c', key: 'k', value: {}, ownerUid: players.owner.uid }]), 403, 'FORBIDDEN');
      expect(await stored(player.uid, 'c')).toEqual([]);
      // A player may name themselves.
      await written(player.token, [{ collection: 'c', key: 'k', value: {}, ownerUid: player.uid }]);
    });

    it('answers admins for any owner, counts a collection for admins only, and refuses an owner who is no user', async () => {
      const player = await api.newPlayer('player');
      const collection = fresh('progress');
      await written(admin.token, [
        { collection, key: 'xp', value: { xp: 1200 }, permissionWrite: 'NONE', ownerUid: player.uid },
        { collection, key: 'rank', value: { rank: 'gold' }, permissionWrite: 'NONE', ownerUid: player.uid },
      ]);
      await written(players.other.token, [{ collection, key: 'xp', value: { xp: 5 } }]);
      expect((await api.found<{ count: number }>(`/admin/storage/${collection}/count`, admin.token)).count).toBe(3);
      expect((await api.found<{ count: number }>(`/admin/storage/${collection}/count?ownerUid=${player.uid}`, admin.token)).count).toBe(2);
      expectErrorBody(await api.get(`/admin/storage/${collection}/count`, { token: player.token }), 403, 'FORBIDDEN');
      // The player reads their protected progress but cannot forge it.
      expect((await read(player.token, [{ collection, key: 'xp' }])).body.objects).toEqual([
        expect.objectContaining({ value: { xp: 1200 } }),
      ]);

      const nobody = '00000000-0000-4000-8000-000000000000';
      expectValidationError(await put(admin.token, [{ collection, key: 'xp', value: {}, ownerUid: nobody }]), 'objects.ownerUid');
      expect(await stored(nobody, collection)).toEqual([]);
    });
  });

  describe('lists', () => {
    it('pages by key with a stable cursor: objects written or deleted meanwhile move no page', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh('replays');
      await written(
        alice.token,
        ['k1', 'k3', 'k5', 'k7', 'k9', 'k11'].map((key) => ({ collection, key, value: { key } })),
      );
      const page = (cursor?: string) =>
        api.found<StoragePageBody>(`/storage/${collection}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, alice.token);

      const first = await page();
      expect(first.objects.map((object) => object.key)).toEqual(['k1', 'k11']);
      // Keys sort byte by byte: k11 before k3.
      await written(alice.token, [
        { collection, key: 'k0', value: {} },
        { collection, key: 'k4', value: {} },
      ]);
      expect((await remove(alice.token, [{ collection, key: 'k3' }])).status).toBe(204);
      const second = await page(first.cursor!);
      expect(second.objects.map((object) => object.key)).toEqual(['k4', 'k5']);
      const third = await page(second.cursor!);
      expect(third.objects.map((object) => object.key)).toEqual(['k7', 'k9']);
      expect(third.cursor).toBeNull();
    });

    it("shows another player's PUBLIC objects only, and cuts a page at LIST_MAX_BYTES of values", async () => {
      const small = await TestApp.start({ LIST_MAX_BYTES: '65536' });
      try {
        const [alice, bob] = [await small.newPlayer('alice'), await small.newPlayer('bob')];
        const objects = Array.from({ length: 5 }, (_, index) => ({
          collection: 'ghosts',
          key: `ghost-${index}`,
          value: valueOfBytes(20_000),
          permissionRead: index % 2 === 0 ? ('PUBLIC' as const) : ('OWNER' as const),
        }));
        expect((await small.put('/storage', { objects }, { token: alice.token })).status).toBe(200);

        const mine = await small.found<StoragePageBody>('/storage/ghosts', alice.token);
        expect(mine.objects.map((object) => object.key)).toEqual(['ghost-0', 'ghost-1', 'ghost-2']);
        const rest = await small.found<StoragePageBody>(`/storage/ghosts?cursor=${mine.cursor}`, alice.token);
        expect(rest.objects.map((object) => object.key)).toEqual(['ghost-3', 'ghost-4']);
        expect(rest.cursor).toBeNull();

        const theirs = await small.found<StoragePageBody>(`/storage/ghosts?ownerUid=${alice.uid}&limit=100`, bob.token);
        expect(theirs.objects.map((object) => object.key)).toEqual(['ghost-0', 'ghost-2', 'ghost-4']);
        expect((await small.found<StoragePageBody>('/storage/ghosts', bob.token)).objects).toEqual([]);
      } finally {
        await small.close();
      }
    });

    it("lists an owner's collections to admins, with their objects and bytes, by pages in name order", async () => {
      const bob = await api.newPlayer('bob');
      await written(bob.token, [
        { collection: 'saves', key: 'slot-1', value: { level: 1 } },
        { collection: 'saves', key: 'slot-2', value: { level: 22 } },
        { collection: 'Settings', key: 'audio', value: {} },
        { collection: 'replays', key: 'r1', value: { frames: [1, 2, 3] } },
      ]);
      const page = (cursor?: string) =>
        api.found<{ collections: Array<{ collection: string; objects: number; bytes: number }>; cursor: string | null }>(
          `/storage?ownerUid=${bob.uid}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          admin.token,
        );

      const first = await page();
      // Names sort byte by byte: upper case first.
      expect(first.collections).toEqual([
        { collection: 'Settings', objects: 1, bytes: 2 },
        { collection: 'replays', objects: 1, bytes: JSON.stringify({ frames: [1, 2, 3] }).length },
      ]);
      const second = await page(first.cursor!);
      expect(second).toEqual({ collections: [{ collection: 'saves', objects: 2, bytes: expect.any(Number) }], cursor: null });
      expect((await usageOf(bob.uid)).kept).toEqual({
        objects: 4,
        bytes: [...first.collections, ...second.collections].reduce((sum, c) => sum + c.bytes, 0),
      });

      expectErrorBody(await api.get(`/storage?ownerUid=${bob.uid}`, { token: bob.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.get('/storage?limit=101', { token: admin.token }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.get('/storage?cursor=%21%21', { token: admin.token }), 400, 'VALIDATION_FAILED');
      const carol = await api.newPlayer('carol');
      expect(await api.found(`/storage?ownerUid=${carol.uid}`, admin.token)).toEqual({ collections: [], cursor: null });
    });

    it('refuses a malformed collection, cursor, limit or owner, and unknown parameters, with 400', async () => {
      const alice = await api.newPlayer('alice');
      const cases: Array<[string, string]> = [
        ['/storage/bad%20name', 'collection'],
        [`/storage/${'c'.repeat(129)}`, 'collection'],
        ['/storage/c?cursor=***', 'cursor'],
        [`/storage/c?cursor=${Buffer.from('not a key').toString('base64url')}`, 'cursor'],
        ['/storage/c?limit=0', 'limit'],
        ['/storage/c?limit=101', 'limit'],
        ['/storage/c?limit=1.5', 'limit'],
        ['/storage/c?ownerUid=alice', 'ownerUid'],
        ['/storage/c?ownerUid=00000000-0000-4000-8000-000000000000&ownerUid=00000000-0000-4000-8000-000000000001', 'ownerUid'],
        ['/storage/c?skip=5', 'skip'],
        ['/storage/c/bad!key', 'key'],
        ['/storage/c/k?limit=5', 'limit'],
      ];
      for (const [path, field] of cases) expectValidationError(await api.get(path, { token: alice.token }), field);
      expect((await api.found<StoragePageBody>(`/storage/${'c'.repeat(128)}?limit=100`, alice.token)).objects).toEqual([]);
    });
  });

  describe('deletes', () => {
    it('deletes a batch, ignores objects that do not exist, and frees the quota', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh();
      const [a] = await written(alice.token, [
        { collection, key: 'a', value: valueOfBytes(100) },
        { collection, key: 'b', value: valueOfBytes(50) },
        { collection, key: 'c', value: {} },
      ]);
      expect(await usageOf(alice.uid)).toEqual({ kept: { objects: 3, bytes: 152 }, actual: { objects: 3, bytes: 152 } });
      const response = await remove(alice.token, [
        { collection, key: 'a', version: a.version },
        { collection, key: 'b' },
        { collection, key: 'never' },
      ]);
      expect(response.status).toBe(204);
      expect(response.body).toBe('');
      expect((await stored(alice.uid, collection)).map((object) => object.key)).toEqual(['c']);
      expect(await usageOf(alice.uid)).toEqual({ kept: { objects: 1, bytes: 2 }, actual: { objects: 1, bytes: 2 } });
    });

    it('deletes none of a batch whose stated version does not hold, even for an object that is gone', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh();
      const [, b] = await written(alice.token, [
        { collection, key: 'a', value: { n: 1 } },
        { collection, key: 'b', value: { n: 2 } },
      ]);
      const stale = await remove(alice.token, [
        { collection, key: 'a' },
        { collection, key: 'b', version: '1'.repeat(32) },
      ]);
      expectErrorBody(stale, 409, 'VERSION_CONFLICT');
      expect(stale.body.storageObject).toEqual({ collection, key: 'b', ownerUid: alice.uid, currentVersion: b.version });
      const gone = await remove(alice.token, [
        { collection, key: 'a' },
        { collection, key: 'z', version: b.version },
      ]);
      expectErrorBody(gone, 409, 'VERSION_CONFLICT');
      expect(gone.body.storageObject?.currentVersion).toBeNull();
      expect((await stored(alice.uid, collection)).map((object) => object.key)).toEqual(['a', 'b']);
      expectValidationError(await remove(alice.token, [{ collection, key: 'a', version: '*' }]), 'objects.0.version');
    });
  });

  describe('limits', () => {
    it('stores a value of exactly STORAGE_VALUE_MAX_BYTES and refuses one byte more with 413', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh();
      const [ack] = await written(alice.token, [{ collection, key: 'max', value: valueOfBytes(65_536) }]);
      expect(ack.version).toMatch(VERSION);
      // Multi-byte text counts in UTF-8 bytes, as sent.
      const multibyte = { d: 'é'.repeat(32_764) };
      expect(Buffer.byteLength(JSON.stringify(multibyte))).toBe(65_536);
      await written(alice.token, [{ collection, key: 'utf8', value: multibyte }]);
      const over = await put(alice.token, [{ collection, key: 'over', value: { d: 'é'.repeat(32_765) } }]);
      expectErrorBody(over, 413, 'PAYLOAD_TOO_LARGE');
      expect(over.body.errors).toEqual([
        { field: 'objects.0.value', message: 'is 65538 bytes of JSON, more than the 65536 a value may take' },
      ]);
      // A batch still fits one body of 1 MiB: 16 values at the limit do not.
      const body = Array.from({ length: 16 }, (_, index) => ({ collection, key: `big-${index}`, value: valueOfBytes(65_536) }));
      expectErrorBody(await put(alice.token, body), 413, 'PAYLOAD_TOO_LARGE');
      expect((await stored(alice.uid, collection)).map((object) => object.key)).toEqual(['max', 'utf8']);
    });

    it('takes batches of 100 objects and refuses 101, and names of 128 characters but not 129 or other characters', async () => {
      const alice = await api.newPlayer('alice');
      const collection = fresh();
      const refs = (count: number) => Array.from({ length: count }, (_, index) => ({ collection, key: `k${index}` }));
      const batch = (count: number) => refs(count).map((ref, index) => ({ ...ref, value: { index } }));
      expect(await written(alice.token, batch(100))).toHaveLength(100);
      expect((await read(alice.token, refs(100))).body.objects).toHaveLength(100);
      expectValidationError(await put(alice.token, batch(101)), 'objects');
      expectValidationError(await read(alice.token, refs(101)), 'objects');
      expectValidationError(await remove(alice.token, refs(101)), 'objects');
      expectValidationError(await put(alice.token, []), 'objects');

      const long = 'k'.repeat(128);
      await written(alice.token, [{ collection: long, key: long, value: {} }]);
      for (const name of ['k'.repeat(129), '', 'slot 1', 'slot/1', 'ключ', 'a:b']) {
        expectValidationError(await put(alice.token, [{ collection, key: name, value: {} }]), 'objects.0.key');
        expectValidationError(await put(alice.token, [{ collection: name, key: 'k', value: {} }]), 'objects.0.collection');
      }
    });

    it.each([
      ['an array', [1, 2]],
      ['a string', 'save'],
      ['a number', 42],
      ['null', null],
      ['a boolean', true],
    ])('refuses %s as a value with 400', async (_case, value) => {
      const alice = await api.newPlayer('alice');
      const response = await put(alice.token, [{ collection: 'c', key: 'k', value }]);
      expectValidationError(response, 'objects.0.value');
      expect(response.body.message).toContain('must be a JSON object');
      expect(await stored(alice.uid, 'c')).toEqual([]);
    });

    it('refuses values PostgreSQL cannot store (U+0000, half a surrogate pair, 1e999) with 400, naming where', async () => {
      const alice = await api.newPlayer('alice');
      const raw = (value: string) =>
        api.put('/storage', `{"objects":[{"collection":"c","key":"k","value":${value}}]}`, { token: alice.token });
      for (const value of ['{"name":"a\\u0000b"}', '{"tags":["\\ud800"]}', '{"score":1e999}', '{"a\\u0000":1}']) {
        expectValidationError(await raw(value), 'objects.0.value');
      }
      expect(await stored(alice.uid, 'c')).toEqual([]);
    });
  });

  describe('quotas', () => {
    let quota: TestApp;
    beforeAll(async () => {
      quota = await TestApp.start({ STORAGE_OBJECTS_PER_OWNER: '50', STORAGE_BYTES_PER_OWNER: '20000' });
    });
    afterAll(async () => {
      await quota.close();
    });

    const usage = async (ownerUid: string) => {
      const { rows } = await quota.database.query<{ objects: number; bytes: string; counted: number; summed: string }>(
        `SELECT u.objects, u.bytes, (SELECT count(*)::int FROM storage_objects o WHERE o."ownerUid" = u."ownerUid") AS counted,
                (SELECT coalesce(sum(size), 0) FROM storage_objects o WHERE o."ownerUid" = u."ownerUid") AS summed
         FROM storage_usage u WHERE u."ownerUid" = $1`,
        [ownerUid],
      );
      return rows[0];
    };

    it('holds the object quota under 20 parallel batches: exactly as many as fit commit, each whole', async () => {
      const player = await quota.newPlayer('hoarder');
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, batch) =>
          quota.put<StorageAcksBody & ErrorResponse>(
            '/storage',
            { objects: Array.from({ length: 5 }, (_, index) => ({ collection: `batch-${batch}`, key: `k${index}`, value: { batch } })) },
            { token: player.token },
          ),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(409)]);
      for (const refused of answers.filter((answer) => answer.status === 409)) {
        expectErrorBody(refused, 409, 'QUOTA_EXCEEDED');
        expect(refused.body.left?.objects).toBe(0);
      }
      const { rows } = await quota.database.query<{ collection: string; n: number }>(
        `SELECT collection, count(*)::int AS n FROM storage_objects WHERE "ownerUid" = $1 GROUP BY collection`,
        [player.uid],
      );
      expect(rows.map((row) => row.n)).toEqual(Array(10).fill(5));
      expect(await usage(player.uid)).toEqual({ objects: 50, bytes: expect.any(String), counted: 50, summed: expect.any(String) });

      // At the limit: no new object, but the existing ones may still change.
      const more = await quota.put<ErrorResponse>(
        '/storage',
        { objects: [{ collection: 'more', key: 'k', value: {} }] },
        { token: player.token },
      );
      expectErrorBody(more, 409, 'QUOTA_EXCEEDED');
      expect(more.body.message).toMatch(/0 objects and \d+ bytes of values are left/);
      expect(
        (
          await quota.put(
            '/storage',
            { objects: [{ collection: rows[0].collection, key: 'k0', value: { changed: true } }] },
            { token: player.token },
          )
        ).status,
      ).toBe(200);
    });

    it('holds the byte quota under 20 parallel batches, says what is left, and lets admins past it', async () => {
      const player = await quota.newPlayer('writer');
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          quota.put<ErrorResponse>(
            '/storage',
            { objects: [{ collection: 'blobs', key: `b${index}`, value: valueOfBytes(1500) }] },
            { token: player.token },
          ),
        ),
      );
      // 13 × 1,500 = 19,500 of 20,000 bytes.
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(13);
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        expectErrorBody(refused, 409, 'QUOTA_EXCEEDED');
        expect(refused.body.left).toEqual({ objects: 37, bytes: 500 });
      }
      expect(await usage(player.uid)).toEqual({ objects: 13, bytes: '19500', counted: 13, summed: '19500' });
      // Exactly at the limit is fine.
      expect(
        (
          await quota.put(
            '/storage',
            { objects: [{ collection: 'blobs', key: 'last', value: valueOfBytes(500) }] },
            { token: player.token },
          )
        ).status,
      ).toBe(200);

      const admin = await quota.signIn('admin');
      const past = await quota.put(
        '/storage',
        { objects: [{ collection: 'server', key: 'state', value: valueOfBytes(5000), ownerUid: player.uid }] },
        { token: admin },
      );
      expect(past.status).toBe(200);
      expect(await usage(player.uid)).toEqual({ objects: 15, bytes: '25000', counted: 15, summed: '25000' });
    });
  });

  describe('realtime', () => {
    it('tells every socket of the owner (both devices) which object changed, without its value, and nobody else', async () => {
      const alice = await api.newPlayer('alice');
      const bob = await api.newPlayer('bob');
      const phone = await RealtimeClient.connect(api.baseUrl, { token: alice.token });
      const laptop = await RealtimeClient.connect(api.baseUrl, { token: await api.signIn(alice.name) });
      const stranger = await RealtimeClient.connect(api.baseUrl, { token: bob.token });
      try {
        const collection = fresh('saves');
        const [ack] = await written(alice.token, [{ collection, key: 'slot-1', value: { secret: 'the boss is weak to fire' } }]);
        expect((await remove(alice.token, [{ collection, key: 'slot-1' }])).status).toBe(204);
        // An admin's write to Alice's storage reaches her too.
        const [serverAck] = await written(admin.token, [
          { collection, key: 'progress', value: { xp: 1 }, ownerUid: alice.uid, permissionWrite: 'NONE' },
        ]);

        for (const device of [phone, laptop]) {
          const events = await device.waitForEvents(3);
          expect(events.map((event) => [event.type, event.data])).toEqual([
            ['storage.updated', { collection, key: 'slot-1', ownerUid: alice.uid, version: ack.version }],
            ['storage.updated', { collection, key: 'slot-1', ownerUid: alice.uid, version: null }],
            ['storage.updated', { collection, key: 'progress', ownerUid: alice.uid, version: serverAck.version }],
          ]);
        }
        // A refused batch tells nobody; nor does another player's write reach Alice.
        await put(alice.token, [{ collection, key: 'progress', value: { xp: 2 } }]);
        await written(bob.token, [{ collection, key: 'slot-1', value: {} }]);
        await stranger.waitForEvents(1);
        expect(stranger.events.map((event) => event.data.ownerUid)).toEqual([bob.uid]);
        expect(phone.events).toHaveLength(3);
      } finally {
        await Promise.all([phone, laptop, stranger].map((client) => client.close()));
      }
    });

    it("writes, from the batch's own statement, one event per object in the batch's order, each exactly StorageUpdatedEvent", async () => {
      const player = await api.newPlayer('saver');
      const collection = fresh('events');
      const acks = await written(player.token, [
        { collection, key: 'b', value: { n: 1 } },
        { collection, key: 'a', value: { n: 2 } },
        { collection, key: 'c', value: { n: 3 }, permissionRead: 'PUBLIC' },
      ]);
      const document = (await api.get<OpenAPIObject>('/docs-json')).body;
      const { rows } = await api.database.query<{ type: string; data: Record<string, unknown> }>(
        `SELECT type, data FROM notifications WHERE "userUid" = $1 ORDER BY id`,
        [player.uid],
      );
      expect(rows.map((row) => [row.type, row.data])).toEqual(
        acks.map((ack) => ['storage.updated', { collection, key: ack.key, ownerUid: player.uid, version: ack.version }]),
      );
      expect(acks.map((ack) => ack.key)).toEqual(['b', 'a', 'c']);
      const problems = rows.flatMap((row, index) =>
        shapeProblems(document, row.data, eventDataSchema(document, row.type), `${row.type} #${index}`),
      );
      expect(problems).toEqual([]);
    });
  });

  describe('with the economy', () => {
    let gold: string;
    beforeAll(async () => {
      gold = (await api.created<{ uid: string }>('/items', { name: 'Gold' }, admin.token)).uid;
    });

    async function crafter() {
      const player = await api.newPlayerWithPersona('crafter');
      const friend = await api.newPlayerWithPersona('friend');
      const award = await api.post(
        '/inventories/transaction',
        {
          type: 'AWARD',
          personaOneUid: player.personaUid,
          personaOneInventoryItems: [{ itemUid: gold, quantity: 10 }],
        },
        { token: admin.token },
      );
      expect(award.status).toBe(200);
      return { player, friend };
    }

    const holdings = async (personaUid: string) =>
      (
        await api.database.query<{ quantity: number }>('SELECT quantity FROM inventory_items WHERE "personaUid" = $1', [personaUid])
      ).rows.map((row) => row.quantity);
    const gift = (from: { token: string; personaUid: string }, to: { personaUid: string }, quantity: number, storageWrites?: Write[]) =>
      api.post<ErrorResponse & { status: unknown; storageAcks?: StorageAcksBody['acks'] }>(
        '/inventories/transaction',
        {
          personaOneUid: from.personaUid,
          personaTwoUid: to.personaUid,
          personaOneInventoryItems: [{ itemUid: gold, quantity }],
          ...(storageWrites && { storageWrites }),
        },
        { token: from.token },
      );

    it('commits the storage writes a gift carries with it, and answers their versions', async () => {
      const { player, friend } = await crafter();
      const [base] = await written(player.token, [{ collection: 'crafting', key: 'state', value: { step: 1 } }]);
      const response = await gift(player, friend, 3, [
        { collection: 'crafting', key: 'state', value: { step: 2 }, version: base.version },
        { collection: 'crafting', key: 'log', value: { gave: 3 }, version: '*' },
      ]);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'COMPLETED' });
      expect(response.body.storageAcks).toEqual([
        { collection: 'crafting', key: 'state', ownerUid: player.uid, version: expect.stringMatching(VERSION) },
        { collection: 'crafting', key: 'log', ownerUid: player.uid, version: expect.stringMatching(VERSION) },
      ]);
      expect(await holdings(player.personaUid)).toEqual([7]);
      expect((await stored(player.uid, 'crafting')).map((object) => object.value)).toEqual([{ gave: 3 }, { step: 2 }]);
      // The stored transaction does not keep them: a read of it has none.
      const [transaction] = await api.found<Array<Record<string, unknown>>>(
        `/transactions?uid=${(response.body as unknown as { uid: string }).uid}`,
        player.token,
      );
      expect(transaction).not.toHaveProperty('storageAcks');
    });

    it('fails both on a version conflict: nothing moves, nothing is stored, no transaction is recorded', async () => {
      const { player, friend } = await crafter();
      await written(player.token, [{ collection: 'crafting', key: 'state', value: { step: 1 } }]);
      const transactionsBefore = await api.countRows('transactions');
      const response = await gift(player, friend, 3, [{ collection: 'crafting', key: 'state', value: { step: 2 }, version: '*' }]);
      expectErrorBody(response, 409, 'VERSION_CONFLICT');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'storageWrites.0.version' })]);
      expect(await holdings(player.personaUid)).toEqual([10]);
      expect(await holdings(friend.personaUid)).toEqual([]);
      expect(await api.countRows('transactions')).toBe(transactionsBefore);
      expect((await stored(player.uid, 'crafting')).map((object) => object.value)).toEqual([{ step: 1 }]);
    });

    it('writes nothing when the trade fails short, and refuses storage writes on a trade that waits for persona two', async () => {
      const { player, friend } = await crafter();
      const short = await gift(player, friend, 11, [{ collection: 'crafting', key: 'state', value: { step: 2 } }]);
      expectErrorBody(short, 409, 'INSUFFICIENT_QUANTITY');
      expect(await stored(player.uid, 'crafting')).toEqual([]);

      const pending = await api.post<ErrorResponse>(
        '/inventories/transaction',
        {
          personaOneUid: player.personaUid,
          personaTwoUid: friend.personaUid,
          personaOneInventoryItems: [{ itemUid: gold, quantity: 1 }],
          personaTwoInventoryItems: [{ itemUid: gold, quantity: 1 }],
          storageWrites: [{ collection: 'crafting', key: 'state', value: {} }],
        },
        { token: player.token },
      );
      expectValidationError(pending, 'storageWrites');
      const eleven = Array.from({ length: 11 }, (_, index) => ({ collection: 'crafting', key: `k${index}`, value: {} }));
      expectValidationError(await gift(player, friend, 1, eleven), 'storageWrites');
      expectErrorBody(await gift(player, friend, 1, [{ collection: 'c', key: 'k', value: {}, ownerUid: friend.uid }]), 403, 'FORBIDDEN');
      expect(await holdings(player.personaUid)).toEqual([10]);
    });

    it("lets an admin's award write the player's protected progress with it", async () => {
      const { player } = await crafter();
      const response = await api.post<{ storageAcks: StorageAcksBody['acks'] }>(
        '/inventories/transaction',
        {
          type: 'AWARD',
          personaOneUid: player.personaUid,
          personaOneInventoryItems: [{ itemUid: gold, quantity: 5 }],
          storageWrites: [{ collection: 'progress', key: 'quest-7', value: { done: true }, ownerUid: player.uid, permissionWrite: 'NONE' }],
        },
        { token: admin.token },
      );
      expect(response.status).toBe(200);
      expect(response.body.storageAcks).toHaveLength(1);
      expect(await holdings(player.personaUid)).toEqual([15]);
      expect(await stored(player.uid, 'progress')).toEqual([expect.objectContaining({ value: { done: true }, permissionWrite: 'NONE' })]);
    });
  });

  it('shows admins what cloud save holds in all: stored_objects and stored_bytes in /metrics, and the console overview', async () => {
    // An app of its own: the totals are read at most once a minute, and nothing else may have read them first.
    const totals = await TestApp.start();
    try {
      const [one, two] = await totals.signInPlayers(2, 'saver');
      const admin = await totals.signIn('admin');
      const value = { text: 'x'.repeat(100) };
      for (const [player, keys] of [
        [one, ['a', 'b', 'c']],
        [two, ['a']],
      ] as const) {
        const objects = keys.map((key) => ({ collection: 'saves', key, value }));
        expect((await totals.put('/storage', { objects }, { token: player.token })).status).toBe(200);
      }
      const bytes = 4 * Buffer.byteLength(JSON.stringify(value));
      const metrics = (await totals.get<string>('/metrics')).body;
      expect(metrics).toContain(`stored_objects{store="storage"} 4`);
      expect(metrics).toContain(`stored_bytes{store="storage"} ${bytes}`);
      expect(metrics).toContain(`stored_objects{store="media"} 0`);
      expect(await totals.found('/admin/stats', admin)).toMatchObject({
        storageObjects: 4,
        storageBytes: bytes,
        mediaFiles: 0,
        mediaBytes: 0,
      });
    } finally {
      await totals.close();
    }
  });

  it('answers an anonymous caller 401 on every route', async () => {
    const responses: Array<TestResponse> = [
      await put(undefined, [{ collection: 'c', key: 'k', value: {} }]),
      await read(undefined, [{ collection: 'c', key: 'k' }]),
      await remove(undefined, [{ collection: 'c', key: 'k' }]),
      await api.get('/storage/c'),
      await api.get('/storage/c/k'),
      await api.get('/storage/c/count'),
      await api.get('/storage'),
    ];
    for (const response of responses) expectErrorBody(response, 401, 'UNAUTHORIZED');
  });
});
