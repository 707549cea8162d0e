import { randomUUID } from 'node:crypto';
import { TestApp } from './support/test-app.js';
import type { CountBody, ErrorResponse, MediaAssetBody, ResolvedTextBody, TextAssetBody } from './support/api-types.js';
import { expectErrorBody, expectValidationError, ISO_MILLISECONDS, UUID_V4 } from './support/expectations.js';

/** Media assets and text assets (docs/CONTRACT.md section 7): catalog data, read by players, written by admins. */

const SHA_UPPER = '9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08';
const SHA_LOWER = SHA_UPPER.toLowerCase();

const PNG = { mimetype: 'image/png', name: 'sword.png', uri: 'https://cdn.example.com/sword.png', sha256sum: SHA_LOWER };
const THUMB = { mimetype: 'image/webp', name: 'sword-64.webp', uri: 'https://cdn.example.com/sword-64.webp' };

/** Lets the clock move on, so that a date written by the next request differs from the ones before. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 15));

describe('assets', () => {
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

  describe('media assets', () => {
    async function createMedia(body: Record<string, unknown>): Promise<MediaAssetBody> {
      const response = await api.post<MediaAssetBody>('/assets/media', body, { token: admin });
      expect(response.status).toBe(201);
      return response.body;
    }

    async function readMedia(uid: string): Promise<MediaAssetBody> {
      const response = await api.get<MediaAssetBody>(`/assets/media/${uid}`, { token: admin });
      expect(response.status).toBe(200);
      return response.body;
    }

    async function mediaCount(): Promise<number> {
      const response = await api.get<CountBody>('/assets/media/count', { token: admin });
      expect(response.status).toBe(200);
      return response.body.count;
    }

    describe('the six operations', () => {
      it('creates with 201 and stamps every file with its own uid, the dates and version 0', async () => {
        const response = await api.post<MediaAssetBody>(
          '/assets/media',
          {
            name: 'Sword art',
            description: 'Icon and thumbnail.',
            files: { default: { ...PNG, sha256sum: SHA_UPPER }, thumbnail: THUMB },
          },
          { token: admin },
        );

        expect(response.status).toBe(201);
        expect(response.headers.etag).toBe('"0"');
        const asset = response.body;
        expect(asset).toEqual({
          uid: expect.stringMatching(UUID_V4),
          name: 'Sword art',
          description: 'Icon and thumbnail.',
          files: {
            default: {
              ...PNG,
              sha256sum: SHA_LOWER,
              uid: expect.stringMatching(UUID_V4),
              dateCreated: asset.dateCreated,
              dateModified: asset.dateCreated,
              version: 0,
              size: null,
            },
            thumbnail: {
              ...THUMB,
              sha256sum: null,
              uid: expect.stringMatching(UUID_V4),
              dateCreated: asset.dateCreated,
              dateModified: asset.dateCreated,
              version: 0,
              size: null,
            },
          },
          dateCreated: expect.stringMatching(ISO_MILLISECONDS),
          dateModified: asset.dateCreated,
          version: 0,
        });
        expect(asset.files.default.uid).not.toBe(asset.files.thumbnail.uid);
        expect(asset.files.default.uid).not.toBe(asset.uid);
        expect(asset).not.toHaveProperty('ownerUid');
      });

      it('finds a media asset by id with its ETag, for a player too', async () => {
        const created = await createMedia({ name: 'Shield art', files: { default: PNG } });

        const response = await api.get<MediaAssetBody>(`/assets/media/${created.uid}`, { token: player });

        expect(response.status).toBe(200);
        expect(response.headers.etag).toBe('"0"');
        expect(response.body).toEqual(created);
      });

      it('lists media assets to a player as a bare array, and counts them as { count }', async () => {
        const created = await createMedia({ name: 'Listed art', files: { default: PNG } });

        const list = await api.get<MediaAssetBody[]>('/assets/media?limit=1000', { token: player });
        const count = await api.get<CountBody>('/assets/media/count', { token: player });

        expect(list.status).toBe(200);
        expect(Array.isArray(list.body)).toBe(true);
        expect(list.body).toContainEqual(created);
        expect(count.status).toBe(200);
        expect(count.body).toEqual({ count: list.body.length });
      });

      it('applies the common list rules (filters, sort, limit) as an addition to the interface document', async () => {
        await createMedia({ name: 'Rule zeta', files: { default: PNG } });
        await createMedia({ name: 'Rule alpha', files: { default: PNG } });

        const sorted = await api.get<MediaAssetBody[]>(`/assets/media?name=like(Rule%20)&sort=${encodeURIComponent('{"name":"ASC"}')}`, {
          token: player,
        });
        const limited = await api.get<MediaAssetBody[]>('/assets/media?name=like(Rule%20)&limit=1&sort=name', { token: player });
        const counted = await api.get<CountBody>('/assets/media/count?name=like(Rule%20)', { token: player });

        expect(sorted.status).toBe(200);
        expect(sorted.body.map((asset) => asset.name)).toEqual(['Rule alpha', 'Rule zeta']);
        expect(limited.body.map((asset) => asset.name)).toEqual(['Rule alpha']);
        expect(counted.body).toEqual({ count: 2 });
        expectValidationError(await api.get('/assets/media?files=x', { token: player }), 'files');
        expectValidationError(await api.get('/assets/media/count?limit=1001', { token: player }), 'limit');
      });

      it('merges an update: name only keeps the files as they were', async () => {
        const created = await createMedia({ name: 'Old name', description: 'Kept.', files: { default: PNG, thumbnail: THUMB } });
        await tick();

        const response = await api.put<MediaAssetBody>(`/assets/media/${created.uid}`, { name: 'New name' }, { token: admin });

        expect(response.status).toBe(200);
        expect(response.headers.etag).toBe('"1"');
        expect(response.body).toEqual({ ...created, name: 'New name', version: 1, dateModified: expect.stringMatching(ISO_MILLISECONDS) });
        expect(response.body.dateModified).not.toBe(created.dateModified);
        expect(await readMedia(created.uid)).toEqual(response.body);
      });

      it('deletes with 204 and no body; the asset is then 404', async () => {
        const created = await createMedia({ name: 'Doomed art', files: { default: PNG } });

        const response = await api.delete(`/assets/media/${created.uid}`, { token: admin });

        expect(response.status).toBe(204);
        expect(response.body).toBe('');
        expectErrorBody(await api.get(`/assets/media/${created.uid}`, { token: admin }), 404, 'NOT_FOUND');
        expectErrorBody(await api.delete(`/assets/media/${created.uid}`, { token: admin }), 404, 'NOT_FOUND');
        const list = await api.get<MediaAssetBody[]>('/assets/media?limit=1000', { token: admin });
        expect(list.body.map((asset) => asset.uid)).not.toContain(created.uid);
      });

      it('accepts a DELETE that sends Content-Type: application/json without a body', async () => {
        const created = await createMedia({ name: 'Quiet art', files: { default: PNG } });

        const response = await api.delete(`/assets/media/${created.uid}`, {
          token: admin,
          headers: { 'content-type': 'application/json' },
        });

        expect(response.status).toBe(204);
        expect(response.body).toBe('');
        expect((await api.get(`/assets/media/${created.uid}`, { token: admin })).status).toBe(404);
      });
    });

    describe('file metadata on update', () => {
      it('keeps unchanged variants, versions changed ones, stamps new ones and drops the ones left out', async () => {
        const created = await createMedia({
          name: 'Variants',
          files: {
            default: PNG,
            thumbnail: THUMB,
            banner: { mimetype: 'image/jpeg', name: 'b.jpg', uri: 'https://cdn.example.com/b.jpg' },
          },
        });
        await tick();

        const response = await api.put<MediaAssetBody>(
          `/assets/media/${created.uid}`,
          {
            files: {
              default: PNG,
              thumbnail: { ...THUMB, uri: 'https://cdn.example.com/sword-64-v2.webp' },
              icon: { mimetype: 'image/svg+xml', name: 'sword.svg', uri: 'http://localhost:8080/sword.svg' },
            },
          },
          { token: admin },
        );

        expect(response.status).toBe(200);
        const updated = response.body;
        expect(updated.version).toBe(1);
        expect(Object.keys(updated.files).sort()).toEqual(['default', 'icon', 'thumbnail']);
        expect(updated.files.default).toEqual(created.files.default);
        expect(updated.files.thumbnail).toEqual({
          ...created.files.thumbnail,
          uri: 'https://cdn.example.com/sword-64-v2.webp',
          version: 1,
          dateModified: updated.dateModified,
        });
        expect(updated.files.thumbnail.dateModified).not.toBe(created.files.thumbnail.dateModified);
        expect(updated.files.icon).toEqual({
          mimetype: 'image/svg+xml',
          name: 'sword.svg',
          uri: 'http://localhost:8080/sword.svg',
          sha256sum: null,
          uid: expect.stringMatching(UUID_V4),
          dateCreated: updated.dateModified,
          dateModified: updated.dateModified,
          version: 0,
          size: null,
        });
        expect([created.files.default.uid, created.files.thumbnail.uid, created.files.banner.uid]).not.toContain(updated.files.icon.uid);
        expect(await readMedia(created.uid)).toEqual(updated);
      });

      it('counts a change of the digest, mimetype or name as a change of the file', async () => {
        const created = await createMedia({ name: 'Digest', files: { default: PNG, a: THUMB, b: THUMB } });

        const response = await api.put<MediaAssetBody>(
          `/assets/media/${created.uid}`,
          {
            files: {
              default: { ...PNG, sha256sum: 'a'.repeat(64) },
              a: { ...THUMB, mimetype: 'image/png' },
              b: { ...THUMB, name: 'other.webp' },
            },
          },
          { token: admin },
        );

        expect(response.status).toBe(200);
        for (const key of ['default', 'a', 'b']) {
          expect(response.body.files[key].version).toBe(1);
          expect(response.body.files[key].uid).toBe(created.files[key].uid);
          expect(response.body.files[key].dateCreated).toBe(created.files[key].dateCreated);
        }
        expect(response.body.files.default.sha256sum).toBe('a'.repeat(64));
      });

      it('treats a digest that differs only in case, or a record sent back whole, as unchanged', async () => {
        const created = await createMedia({ name: 'Round trip', files: { default: PNG, thumbnail: THUMB } });
        const read = await readMedia(created.uid);

        const sameDigest = await api.put<MediaAssetBody>(
          `/assets/media/${created.uid}`,
          { files: { default: { ...PNG, sha256sum: SHA_UPPER }, thumbnail: THUMB } },
          { token: admin },
        );
        const wholeRecord = await api.put<MediaAssetBody>(`/assets/media/${created.uid}`, { ...read, version: 1 }, { token: admin });

        expect(sameDigest.status).toBe(200);
        expect(sameDigest.body.files).toEqual(created.files);
        expect(wholeRecord.status).toBe(200);
        expect(wholeRecord.body.version).toBe(2);
        expect(wholeRecord.body.files).toEqual(created.files);
      });

      it('lets exactly one of 10 concurrent file updates stating version 0 win, and its files stick', async () => {
        const created = await createMedia({ name: 'Raced', files: { default: PNG } });

        const responses = await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            api.put<MediaAssetBody & ErrorResponse>(
              `/assets/media/${created.uid}`,
              { version: 0, files: { default: { ...PNG, name: `race-${index}.png` } } },
              { token: admin },
            ),
          ),
        );

        const winners = responses.filter((response) => response.status === 200);
        expect(winners).toHaveLength(1);
        for (const loser of responses.filter((response) => response.status !== 200)) {
          expectErrorBody(loser, 409, 'VERSION_CONFLICT');
          expect(loser.body.currentVersion).toBe(1);
        }
        const stored = await readMedia(created.uid);
        expect(stored).toEqual(winners[0].body);
        expect(stored.files.default).toMatchObject({ uid: created.files.default.uid, version: 1 });
      });
    });

    describe('versions and ids', () => {
      it('refuses a stale version (body or If-Match) with 409 and changes nothing', async () => {
        const created = await createMedia({ name: 'Versioned', files: { default: PNG } });
        const first = await api.put<MediaAssetBody>(`/assets/media/${created.uid}`, { name: 'Versioned 1', version: 0 }, { token: admin });
        expect(first.status).toBe(200);

        const staleBody = await api.put<ErrorResponse>(
          `/assets/media/${created.uid}`,
          { files: { default: THUMB }, version: 0 },
          { token: admin },
        );
        const staleHeader = await api.put<ErrorResponse>(
          `/assets/media/${created.uid}`,
          { name: 'Versioned 2' },
          { token: admin, headers: { 'if-match': '"0"' } },
        );

        for (const stale of [staleBody, staleHeader]) {
          expectErrorBody(stale, 409, 'VERSION_CONFLICT');
          expect(stale.body.currentVersion).toBe(1);
        }
        expect(await readMedia(created.uid)).toEqual(first.body);
        const fresh = await api.put<MediaAssetBody>(
          `/assets/media/${created.uid}`,
          { name: 'Versioned 2' },
          { token: admin, headers: { 'if-match': '"1"' } },
        );
        expect(fresh.status).toBe(200);
        expect(fresh.body.version).toBe(2);
      });

      it('refuses an update whose body names another uid with 400', async () => {
        const created = await createMedia({ name: 'Identity', files: { default: PNG } });

        expectValidationError(await api.put(`/assets/media/${created.uid}`, { uid: randomUUID(), name: 'Other' }, { token: admin }), 'uid');
        expect(await readMedia(created.uid)).toEqual(created);
      });

      it('answers 400 to a malformed id and 404 to an unknown one', async () => {
        for (const response of [
          await api.get('/assets/media/not-a-uuid', { token: admin }),
          await api.put('/assets/media/not-a-uuid', { name: 'x' }, { token: admin }),
          await api.delete('/assets/media/not-a-uuid', { token: admin }),
        ]) {
          expectValidationError(response, 'id');
        }
        const unknown = randomUUID();
        for (const response of [
          await api.get(`/assets/media/${unknown}`, { token: admin }),
          await api.put(`/assets/media/${unknown}`, { name: 'x' }, { token: admin }),
          await api.put(`/assets/media/${unknown}`, { files: { default: PNG } }, { token: admin }),
          await api.delete(`/assets/media/${unknown}`, { token: admin }),
        ]) {
          expectErrorBody(response, 404, 'NOT_FOUND');
        }
      });
    });

    describe('validation', () => {
      it.each([
        ['no files', { name: 'No files' }, 'files'],
        ['null files', { name: 'Null files', files: null }, 'files'],
        ['files as an array', { name: 'Array', files: [PNG] }, 'files'],
        ['files without a default variant', { name: 'No default', files: { thumbnail: THUMB } }, 'files'],
        ['an empty files map', { name: 'Empty', files: {} }, 'files'],
        ['a variant key with a space', { name: 'Bad key', files: { default: PNG, 'big thumb': THUMB } }, 'files'],
        [
          '33 variants',
          { name: 'Crowded', files: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [i ? `v${i}` : 'default', PNG])) },
          'files',
        ],
        ['a variant that is not an object', { name: 'Stringy', files: { default: PNG, thumbnail: 'sword.png' } }, 'files.thumbnail'],
        [
          'a digest of 63 characters',
          { name: 'Short hash', files: { default: { ...PNG, sha256sum: 'a'.repeat(63) } } },
          'files.default.sha256sum',
        ],
        [
          'a digest that is not hexadecimal',
          { name: 'Odd hash', files: { default: { ...PNG, sha256sum: 'g'.repeat(64) } } },
          'files.default.sha256sum',
        ],
        ['a mimetype without a subtype', { name: 'Bad type', files: { default: { ...PNG, mimetype: 'png' } } }, 'files.default.mimetype'],
        [
          'a uri that is not http(s)',
          { name: 'FTP', files: { default: { ...PNG, uri: 'ftp://cdn.example.com/sword.png' } } },
          'files.default.uri',
        ],
        ['a uri that is not a URL', { name: 'Not a URL', files: { default: { ...PNG, uri: 'sword.png' } } }, 'files.default.uri'],
        [
          'a file without a name',
          { name: 'Nameless file', files: { default: PNG, thumbnail: { mimetype: 'image/png', uri: PNG.uri } } },
          'files.thumbnail.name',
        ],
        ['an unknown field in a file', { name: 'Extra', files: { default: { ...PNG, colour: 'red' } } }, 'files.default.colour'],
        ['no name', { files: { default: PNG } }, 'name'],
        ['an empty name', { name: '', files: { default: PNG } }, 'name'],
        ['an unknown field', { name: 'Colourful', files: { default: PNG }, colour: 'red' }, 'colour'],
      ])('refuses a create with %s: 400 naming the field, nothing created', async (_case, body, field) => {
        const before = await mediaCount();

        const response = await api.post<ErrorResponse>('/assets/media', body, { token: admin });

        expectValidationError(response, field);
        expect(await mediaCount()).toBe(before);
      });

      it('reports every bad field of every variant at once', async () => {
        const response = await api.post<ErrorResponse>(
          '/assets/media',
          {
            name: 'Many faults',
            files: { default: { ...PNG, sha256sum: 'xyz', uri: 'nowhere' }, thumbnail: { ...THUMB, mimetype: 'webp' } },
          },
          { token: admin },
        );

        expectErrorBody(response, 400, 'VALIDATION_FAILED');
        expect(response.body.errors!.map((error) => error.field).sort()).toEqual([
          'files.default.sha256sum',
          'files.default.uri',
          'files.thumbnail.mimetype',
        ]);
      });

      it.each([
        ['null files', { files: null }, 'files'],
        ['files without a default variant', { files: { thumbnail: THUMB } }, 'files'],
        ['a bad digest', { files: { default: { ...PNG, sha256sum: '1234' } } }, 'files.default.sha256sum'],
        ['a null name', { name: null }, 'name'],
        ['an unknown field', { colour: 'red' }, 'colour'],
      ])('refuses an update with %s: 400 naming the field, asset unchanged', async (_case, body, field) => {
        const created = await createMedia({ name: 'Steady art', files: { default: PNG, thumbnail: THUMB } });

        const response = await api.put<ErrorResponse>(`/assets/media/${created.uid}`, body, { token: admin });

        expectValidationError(response, field);
        expect(await readMedia(created.uid)).toEqual(created);
      });

      it('enforces a default variant in the database too', async () => {
        const refused = await api.database.query(`INSERT INTO media_assets (name, files) VALUES ('raw', '{"thumbnail": {}}')`).then(
          () => 'accepted',
          (error: { code: string }) => error.code,
        );
        expect(refused).toBe('23514');
      });
    });

    describe('access', () => {
      it('answers 401 to every media route without a token, and changes nothing', async () => {
        const created = await createMedia({ name: 'Anonymous target', files: { default: PNG } });
        const before = await mediaCount();

        for (const response of [
          await api.get('/assets/media'),
          await api.get('/assets/media/count'),
          await api.get(`/assets/media/${created.uid}`),
          await api.post('/assets/media', { name: 'Sneaky', files: { default: PNG } }),
          await api.put(`/assets/media/${created.uid}`, { name: 'Renamed' }),
          await api.delete(`/assets/media/${created.uid}`),
        ]) {
          expectErrorBody(response, 401, 'UNAUTHORIZED');
        }
        expect(await mediaCount()).toBe(before);
        expect(await readMedia(created.uid)).toEqual(created);
      });

      it('refuses a player every write with 403, and changes nothing', async () => {
        const created = await createMedia({ name: 'Guarded art', files: { default: PNG } });
        const before = await mediaCount();

        expectErrorBody(await api.post('/assets/media', { name: 'Forged', files: { default: PNG } }, { token: player }), 403, 'FORBIDDEN');
        expectErrorBody(await api.put(`/assets/media/${created.uid}`, { files: { default: THUMB } }, { token: player }), 403, 'FORBIDDEN');
        expectErrorBody(await api.delete(`/assets/media/${created.uid}`, { token: player }), 403, 'FORBIDDEN');

        expect(await mediaCount()).toBe(before);
        expect(await readMedia(created.uid)).toEqual(created);
      });
    });
  });

  describe('text assets', () => {
    const GREETING = { default: 'Hello!', en: 'Hello!', pt: 'Olá!', 'pt-BR': 'Oi!', 'zh-Hant': '你好！' };

    async function createText(body: Record<string, unknown>): Promise<TextAssetBody> {
      const response = await api.post<TextAssetBody>('/assets/text', body, { token: admin });
      expect(response.status).toBe(201);
      return response.body;
    }

    async function readText(uid: string): Promise<TextAssetBody> {
      const response = await api.get<TextAssetBody>(`/assets/text/${uid}`, { token: admin });
      expect(response.status).toBe(200);
      return response.body;
    }

    async function textCount(): Promise<number> {
      const response = await api.get<CountBody>('/assets/text/count', { token: admin });
      expect(response.status).toBe(200);
      return response.body.count;
    }

    describe('the six operations', () => {
      it('creates with 201 and stores the texts with their tags as given', async () => {
        const response = await api.post<TextAssetBody>(
          '/assets/text',
          { name: 'Greeting', description: 'Title screen.', text: { ...GREETING, 'DE-ch': 'Grüezi!' } },
          { token: admin },
        );

        expect(response.status).toBe(201);
        expect(response.headers.etag).toBe('"0"');
        expect(response.body).toEqual({
          uid: expect.stringMatching(UUID_V4),
          name: 'Greeting',
          description: 'Title screen.',
          text: { ...GREETING, 'DE-ch': 'Grüezi!' },
          dateCreated: expect.stringMatching(ISO_MILLISECONDS),
          dateModified: expect.stringMatching(ISO_MILLISECONDS),
          version: 0,
        });
        expect(response.body).not.toHaveProperty('ownerUid');
      });

      it('finds, lists and counts text assets for a player', async () => {
        const created = await createText({ name: 'Farewell', text: { default: 'Bye!', en: 'Bye!' } });

        const found = await api.get<TextAssetBody>(`/assets/text/${created.uid}`, { token: player });
        const list = await api.get<TextAssetBody[]>('/assets/text?limit=1000', { token: player });
        const count = await api.get<CountBody>('/assets/text/count', { token: player });
        const filtered = await api.get<TextAssetBody[]>('/assets/text?name=Farewell', { token: player });

        expect(found.status).toBe(200);
        expect(found.headers.etag).toBe('"0"');
        expect(found.body).toEqual(created);
        expect(list.status).toBe(200);
        expect(list.body).toContainEqual(created);
        expect(count.body).toEqual({ count: list.body.length });
        expect(filtered.body).toEqual([created]);
      });

      it('replaces the text map as a whole on update, and keeps it on a name-only update', async () => {
        const created = await createText({ name: 'Menu', text: GREETING });

        const renamed = await api.put<TextAssetBody>(`/assets/text/${created.uid}`, { name: 'Main menu' }, { token: admin });
        const replaced = await api.put<TextAssetBody>(
          `/assets/text/${created.uid}`,
          { text: { default: 'Start', fr: 'Commencer' }, description: null, version: 1 },
          { token: admin },
        );

        expect(renamed.status).toBe(200);
        expect(renamed.body).toMatchObject({ name: 'Main menu', text: GREETING, version: 1 });
        expect(replaced.status).toBe(200);
        expect(replaced.headers.etag).toBe('"2"');
        expect(replaced.body).toMatchObject({
          name: 'Main menu',
          text: { default: 'Start', fr: 'Commencer' },
          description: null,
          version: 2,
        });
        expect(await readText(created.uid)).toEqual(replaced.body);
      });

      it('refuses a stale version with 409 and changes nothing', async () => {
        const created = await createText({ name: 'Contested', text: { default: 'A' } });
        expect((await api.put(`/assets/text/${created.uid}`, { text: { default: 'B' } }, { token: admin })).status).toBe(200);

        const stale = await api.put<ErrorResponse>(`/assets/text/${created.uid}`, { text: { default: 'C' }, version: 0 }, { token: admin });

        expectErrorBody(stale, 409, 'VERSION_CONFLICT');
        expect(stale.body.currentVersion).toBe(1);
        expect((await readText(created.uid)).text).toEqual({ default: 'B' });
      });

      it('deletes with 204 and no body; the asset is then 404', async () => {
        const created = await createText({ name: 'Doomed text', text: { default: 'Gone' } });

        const response = await api.delete(`/assets/text/${created.uid}`, { token: admin });

        expect(response.status).toBe(204);
        expect(response.body).toBe('');
        expectErrorBody(await api.get(`/assets/text/${created.uid}`, { token: admin }), 404, 'NOT_FOUND');
        expectErrorBody(await api.delete(`/assets/text/${created.uid}`, { token: admin }), 404, 'NOT_FOUND');
      });

      it('answers 400 to a malformed id and 404 to an unknown one', async () => {
        expectValidationError(await api.get('/assets/text/12345', { token: admin }), 'id');
        expectValidationError(await api.delete('/assets/text/12345', { token: admin }), 'id');
        const unknown = randomUUID();
        expectErrorBody(await api.get(`/assets/text/${unknown}`, { token: admin }), 404, 'NOT_FOUND');
        expectErrorBody(await api.put(`/assets/text/${unknown}`, { name: 'x' }, { token: admin }), 404, 'NOT_FOUND');
        expectErrorBody(await api.delete(`/assets/text/${unknown}`, { token: admin }), 404, 'NOT_FOUND');
      });
    });

    describe('validation', () => {
      it.each([
        ['no text', { name: 'Mute' }, 'text'],
        ['text without default', { name: 'No default', text: { en: 'Hi' } }, 'text'],
        ['a malformed language tag', { name: 'Bad tag', text: { default: 'Hi', pt_BR: 'Oi' } }, 'text'],
        ['a word for a language', { name: 'Wordy', text: { default: 'Hi', english: 'Hi' } }, 'text'],
        ['one language twice in different case', { name: 'Twice', text: { default: 'Hi', 'pt-BR': 'Oi', 'pt-br': 'Oi' } }, 'text'],
        ['a text that is not a string', { name: 'Numeric', text: { default: 'Hi', en: 5 } }, 'text'],
        ['a text longer than 100000 characters', { name: 'Long', text: { default: 'x'.repeat(100_001) } }, 'text'],
        [
          'more than 200 languages',
          {
            name: 'Babel',
            text: Object.fromEntries([
              ['default', 'x'],
              ...Array.from({ length: 201 }, (_, i) => [`en-${String(i).padStart(3, '0')}`, 'x']),
            ]),
          },
          'text',
        ],
        ['text as an array', { name: 'Listy', text: ['Hi'] }, 'text'],
        ['no name', { text: { default: 'Hi' } }, 'name'],
        ['an unknown field', { name: 'Extra', text: { default: 'Hi' }, colour: 'red' }, 'colour'],
      ])('refuses a create with %s: 400 naming the field, nothing created', async (_case, body, field) => {
        const before = await textCount();

        const response = await api.post<ErrorResponse>('/assets/text', body, { token: admin });

        expectValidationError(response, field);
        expect(await textCount()).toBe(before);
      });

      it('names the offending key in the message', async () => {
        const response = await api.post<ErrorResponse>(
          '/assets/text',
          { name: 'Bad tag', text: { en: 'Hi', pt_BR: 'Oi' } },
          { token: admin },
        );

        expectErrorBody(response, 400, 'VALIDATION_FAILED');
        const messages = response.body.errors!.filter((error) => error.field === 'text').map((error) => error.message);
        expect(messages.join(' ')).toContain('"pt_BR"');
        expect(messages.join(' ')).toContain('default');
      });

      it.each([
        ['text without default', { text: { en: 'Hi' } }, 'text'],
        ['null text', { text: null }, 'text'],
        ['a malformed language tag', { text: { default: 'Hi', 'e-n': 'Hi' } }, 'text'],
        ['a null name', { name: null }, 'name'],
      ])('refuses an update with %s: 400 naming the field, asset unchanged', async (_case, body, field) => {
        const created = await createText({ name: 'Steady text', text: { default: 'Hi', en: 'Hi' } });

        const response = await api.put<ErrorResponse>(`/assets/text/${created.uid}`, body, { token: admin });

        expectValidationError(response, field);
        expect(await readText(created.uid)).toEqual(created);
      });
    });

    describe('resolve', () => {
      let greeting: TextAssetBody;

      beforeAll(async () => {
        greeting = await createText({ name: 'Resolvable greeting', text: GREETING });
      });

      async function resolve<T = ResolvedTextBody>(query: string, headers?: Record<string, string>) {
        return api.get<T>(`/assets/text/${greeting.uid}/resolve${query}`, { token: player, headers });
      }

      it.each([
        ['?lang=pt-BR', 'pt-BR', 'Oi!'],
        ['?lang=pt-PT', 'pt', 'Olá!'],
        ['?lang=PT-br', 'pt-BR', 'Oi!'],
        ['?lang=en-GB', 'en', 'Hello!'],
        ['?lang=zh-Hant-TW', 'zh-Hant', '你好！'],
        ['?lang=fr', 'default', 'Hello!'],
        ['', 'default', 'Hello!'],
      ])('answers %s with the %s text', async (query, language, text) => {
        const response = await resolve(query);

        expect(response.status).toBe(200);
        expect(response.body).toEqual({ language, text });
        expect(response.headers.vary).toMatch(/Accept-Language/i);
        expect(response.headers['content-language']).toBe(language === 'default' ? undefined : language);
      });

      it.each([
        ['pt-BR', 'pt-BR'],
        ['fr-CA, pt;q=0.9, en;q=0.8', 'pt'],
        ['en;q=0.5, pt-BR;q=0.9', 'pt-BR'],
        ['fr, de;q=0.8', 'default'],
        ['pt-BR;q=0, en', 'en'],
        ['*, zh-Hant-HK;q=0.1', 'zh-Hant'],
        ['!!!, en-US', 'en'],
      ])('answers Accept-Language: %s with the %s text', async (header, language) => {
        const response = await resolve('', { 'accept-language': header });

        expect(response.status).toBe(200);
        expect(response.body).toEqual({ language, text: GREETING[language as keyof typeof GREETING] });
      });

      it('lets lang win over Accept-Language', async () => {
        const response = await resolve('?lang=en', { 'accept-language': 'pt-BR' });

        expect(response.status).toBe(200);
        expect(response.body.language).toBe('en');
      });

      it('leaves the record as it was', async () => {
        await resolve('?lang=pt-BR');

        expect(await readText(greeting.uid)).toEqual(greeting);
      });

      it.each(['pt_BR', 'portuguese', 'x', ''])('refuses lang=%s with 400', async (lang) => {
        expectValidationError(await resolve<ErrorResponse>(`?lang=${encodeURIComponent(lang)}`), 'lang');
      });

      it('refuses lang given twice with 400', async () => {
        expectValidationError(await resolve<ErrorResponse>('?lang=en&lang=pt'), 'lang');
      });

      it('answers 404 to an unknown asset, 400 to a malformed id and 401 without a token', async () => {
        expectErrorBody(await api.get(`/assets/text/${randomUUID()}/resolve?lang=en`, { token: player }), 404, 'NOT_FOUND');
        expectValidationError(await api.get('/assets/text/nope/resolve', { token: player }), 'id');
        expectErrorBody(await api.get(`/assets/text/${greeting.uid}/resolve`), 401, 'UNAUTHORIZED');
      });
    });

    describe('access', () => {
      it('answers 401 to every text route without a token, and changes nothing', async () => {
        const created = await createText({ name: 'Anonymous target', text: { default: 'Hi' } });
        const before = await textCount();

        for (const response of [
          await api.get('/assets/text'),
          await api.get('/assets/text/count'),
          await api.get(`/assets/text/${created.uid}`),
          await api.post('/assets/text', { name: 'Sneaky', text: { default: 'Hi' } }),
          await api.put(`/assets/text/${created.uid}`, { name: 'Renamed' }),
          await api.delete(`/assets/text/${created.uid}`),
        ]) {
          expectErrorBody(response, 401, 'UNAUTHORIZED');
        }
        expect(await textCount()).toBe(before);
        expect(await readText(created.uid)).toEqual(created);
      });

      it('refuses a player every write with 403, and changes nothing', async () => {
        const created = await createText({ name: 'Guarded text', text: { default: 'Hi' } });
        const before = await textCount();

        expectErrorBody(await api.post('/assets/text', { name: 'Forged', text: { default: 'Hi' } }, { token: player }), 403, 'FORBIDDEN');
        expectErrorBody(await api.put(`/assets/text/${created.uid}`, { text: { default: 'Hacked' } }, { token: player }), 403, 'FORBIDDEN');
        expectErrorBody(await api.delete(`/assets/text/${created.uid}`, { token: player }), 403, 'FORBIDDEN');

        expect(await textCount()).toBe(before);
        expect(await readText(created.uid)).toEqual(created);
      });
    });
  });

  describe('OpenAPI document', () => {
    let document: any;

    beforeAll(async () => {
      const response = await api.get('/docs-json');
      expect(response.status).toBe(200);
      document = response.body;
    });

    it('describes every asset route with a summary, and the deletes as 204', () => {
      for (const base of ['/assets/media', '/assets/text']) {
        const operations = [
          document.paths[base].get,
          document.paths[base].post,
          document.paths[`${base}/count`].get,
          document.paths[`${base}/{id}`].get,
          document.paths[`${base}/{id}`].put,
          document.paths[`${base}/{id}`].delete,
        ];
        for (const operation of operations) expect(operation.summary).toEqual(expect.any(String));
        expect(Object.keys(document.paths[`${base}/{id}`].delete.responses)).toContain('204');
        expect(document.paths[base].post.responses['403'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBody');
      }
      expect(document.paths['/assets/text/{id}/resolve'].get.summary).toEqual(expect.any(String));
      expect(document.paths['/assets/text/{id}/resolve'].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
        expect.arrayContaining(['id', 'lang', 'Accept-Language']),
      );
    });

    it('describes files as a map of file objects, with an example holding default and thumbnail', () => {
      const { schemas } = document.components;
      for (const [schema, fileSchema] of [
        ['MediaAsset', 'MediaFile'],
        ['CreateMediaAssetDto', 'MediaFileDto'],
      ]) {
        const files = schemas[schema].properties.files;
        expect(files.type).toBe('object');
        expect(files.additionalProperties).toEqual({ $ref: `#/components/schemas/${fileSchema}` });
        expect(Object.keys(files.example)).toEqual(['default', 'thumbnail']);
      }
      expect(Object.keys(schemas.MediaFile.properties)).toEqual(
        expect.arrayContaining(['mimetype', 'name', 'uri', 'sha256sum', 'uid', 'dateCreated', 'dateModified', 'version']),
      );
      expect(Object.keys(schemas.MediaFileDto.properties).sort()).toEqual(['mimetype', 'name', 'sha256sum', 'uri']);
      expect(schemas.CreateMediaAssetDto.required).toEqual(expect.arrayContaining(['name', 'files']));
    });

    it('describes text as a map of strings, with an example holding default and en', () => {
      for (const schema of ['TextAsset', 'CreateTextAssetDto']) {
        const text = document.components.schemas[schema].properties.text;
        expect(text.type).toBe('object');
        expect(text.additionalProperties).toEqual(expect.objectContaining({ type: 'string' }));
        expect(text.example).toEqual(expect.objectContaining({ default: expect.any(String), en: expect.any(String) }));
      }
    });
  });
});
