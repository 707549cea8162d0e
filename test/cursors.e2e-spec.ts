import { SignedCursors } from '../src/common/signed-cursors.js';
import { dataChecksum } from './support/data-checksum.js';
import { expectErrorBody } from './support/expectations.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

type Player = SignedInPlayer & { personaUid: string };

/** A cursor's JSON as a client can read it (its body), changed, with the MAC it came with. */
function tampered(cursor: string, change: (value: { e: number; p: Record<string, unknown> }) => void): string {
  const [body, mac] = cursor.split('.');
  const value = JSON.parse(Buffer.from(body, 'base64url').toString()) as { e: number; p: Record<string, unknown> };
  change(value);
  return `${Buffer.from(JSON.stringify(value)).toString('base64url')}.${mac}`;
}

/**
 * The opaque cursors the API hands out are signed and expire (issue 47, finding 8): a leaderboard
 * cursor was base64 JSON, so `"t": 9e15` never expired and `"s": 0` replayed the whole change log on
 * every page; a storage cursor named any key. Forged, tampered or taken to another list, a cursor is
 * 400 INVALID_CURSOR; past its time, 400 CURSOR_EXPIRED; either way nothing changes.
 */
describe('cursors', () => {
  let api: TestApp;
  let admin: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api.close();
  });

  describe('of a leaderboard', () => {
    let board: string;
    let players: Player[];
    const page = (query: string) =>
      api.get<Array<{ rank: number }>>(`/leaderboards/${board}/records?${query}`, { token: players[0].token });

    beforeAll(async () => {
      board = (await api.created<{ uid: string }>('/leaderboards', { name: 'Cursor rules' }, admin)).uid;
      players = await Promise.all(Array.from({ length: 4 }, () => api.newPlayerWithPersona('ranked')));
      for (const [index, player] of players.entries()) {
        expect((await api.post(`/leaderboards/${board}/records`, { score: 100 - index }, { token: player.token })).status).toBe(200);
      }
    });

    it('lead to the next page as given', async () => {
      const first = await page('limit=2');
      const second = await page(`limit=2&cursor=${first.headers['x-next-cursor'] as string}`);
      expect(second.body.map(({ rank }) => rank)).toEqual([3, 4]);
    });

    it('refuse a cursor whose position, moment or time a client changed, and an unsigned one', async () => {
      const cursor = (await page('limit=1')).headers['x-next-cursor'] as string;
      const unsigned = Buffer.from(JSON.stringify({ p: board, r: 1, k: 'a'.repeat(80), s: 0, g: [], t: 9e15 })).toString('base64url');
      const before = await dataChecksum(api.database);
      for (const forged of [
        tampered(cursor, (value) => (value.p.s = 0)),
        tampered(cursor, (value) => (value.p.t = 9e15)),
        tampered(cursor, (value) => (value.e = 9e12)),
        tampered(cursor, (value) => (value.p.r = 0)),
        unsigned,
        `${unsigned}.${cursor.split('.')[1]}`,
      ]) {
        const refused = await page(`limit=1&cursor=${forged}`);
        expect(refused.body).toMatchObject({ errors: [{ field: 'cursor' }] });
        expectErrorBody(refused, 400, forged === unsigned ? 'VALIDATION_FAILED' : 'INVALID_CURSOR');
      }
      expect(await dataChecksum(api.database)).toEqual(before);
    });

    it('refuse one past its time with CURSOR_EXPIRED', async () => {
      const cursor = (await page('limit=1')).headers['x-next-cursor'] as string;
      const { p: position } = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString()) as { p: unknown };
      // The service's own signature, on the same position, with a time already past.
      const expired = api.app.get(SignedCursors).sign('leaderboard-records', position, Date.now() - 1000);
      expectErrorBody(await page(`limit=1&cursor=${expired}`), 400, 'CURSOR_EXPIRED');
    });
  });

  describe('of cloud save', () => {
    it('lead through a list, and are refused forged, of another list or past their time', async () => {
      const player = await api.newPlayer('saver');
      const objects = ['a', 'b', 'c'].map((key) => ({ collection: 'saves', key, value: { key } }));
      expect((await api.put('/storage', { objects }, { token: player.token })).status).toBe(200);
      const first = await api.found<{ cursor: string }>('/storage/saves?limit=1', player.token);
      const second = await api.found<{ objects: Array<{ key: string }> }>(`/storage/saves?limit=1&cursor=${first.cursor}`, player.token);
      expect(second.objects.map(({ key }) => key)).toEqual(['b']);

      const ofCollections = api.app.get(SignedCursors).sign('storage-collections', 'a', Date.now() + 60_000);
      const leaderboardKind = api.app.get(SignedCursors).sign('leaderboard-records', 'a', Date.now() + 60_000);
      const expired = api.app.get(SignedCursors).sign('storage-objects', 'a', Date.now() - 1000);
      for (const [cursor, code] of [
        [tampered(first.cursor, (value) => (value.p = 'z' as never)), 'INVALID_CURSOR'],
        [Buffer.from('a').toString('base64url'), 'VALIDATION_FAILED'],
        [ofCollections, 'INVALID_CURSOR'],
        [leaderboardKind, 'INVALID_CURSOR'],
        [expired, 'CURSOR_EXPIRED'],
      ]) {
        expectErrorBody(await api.get(`/storage/saves?limit=1&cursor=${cursor}`, { token: player.token }), 400, code);
      }
    });
  });
});
