import { decodeCursor, encodeCursor } from './page-cursor.js';

describe('page cursors', () => {
  const key = 'a'.repeat(80);
  it('come back as they were given', () => {
    const open = { p: '0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70', r: 20, k: key, s: 1234, g: [1200], t: 1_700_000_000_000 };
    expect(decodeCursor(encodeCursor(open))).toEqual(open);
    const closed = { p: '0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70', r: 100 };
    expect(decodeCursor(encodeCursor(closed))).toEqual(closed);
  });

  it('refuse what the service did not make', () => {
    for (const text of [
      '',
      'not base64!',
      encodeCursor({ p: 'x', r: 1 }),
      Buffer.from('[1]').toString('base64url'),
      encodeCursor({ p: '0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70', r: -1 }),
      'a'.repeat(5000),
    ]) {
      expect(() => decodeCursor(text)).toThrow(/cursor/);
    }
    expect(() => decodeCursor(encodeCursor({ p: '0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70', r: 1, k: 'short', s: 1, g: [], t: 1 }))).toThrow();
  });
});
