import { SignedCursors } from '../../common/signed-cursors.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';

describe('page cursors', () => {
  const cursors = SignedCursors.fromSecret('a-secret-of-the-service-32-characters');
  const key = 'a'.repeat(80);
  const period = '0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70';

  it('come back as they were given, while their first page is recent enough', () => {
    const open = { p: period, r: 20, k: key, s: 1234, g: [1200], t: Date.now() };
    expect(decodeCursor(cursors, encodeCursor(cursors, open, 60_000))).toEqual(open);
    const closed = { p: period, r: 100, t: Date.now() };
    expect(decodeCursor(cursors, encodeCursor(cursors, closed, 60_000))).toEqual(closed);
  });

  it('expire with their first page: every later page keeps its moment and its time', () => {
    const old = { p: period, r: 20, k: key, s: 1234, g: [], t: Date.now() - 61_000 };
    expect(() => decodeCursor(cursors, encodeCursor(cursors, old, 60_000))).toThrow(/expired/);
  });

  it('refuse what the service did not make, and what another release made of another shape', () => {
    for (const text of [
      '',
      'not base64!',
      Buffer.from(JSON.stringify({ p: period, r: 1, t: 1 })).toString('base64url'),
      'a'.repeat(5000),
    ]) {
      expect(() => decodeCursor(cursors, text)).toThrow(/cursor/);
    }
    const signedBadly = cursors.sign(
      'leaderboard-records',
      { p: period, r: 1, k: 'short', s: 1, g: [], t: Date.now() },
      Date.now() + 60_000,
    );
    expect(() => decodeCursor(cursors, signedBadly)).toThrow(/cursor/);
  });
});
