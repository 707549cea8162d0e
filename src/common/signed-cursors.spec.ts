import { ApiException, ErrorCode } from './errors.js';
import { MAX_CURSOR_LENGTH, SignedCursors } from './signed-cursors.js';

const cursors = SignedCursors.fromSecret('a-secret-of-the-service-32-characters');
const now = 1_800_000_000_000;

/** The code of the 400 reading `text` fails with. */
function refusal(read: () => unknown): ErrorCode | undefined {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException).getStatus()).toBe(400);
    return (error as ApiException).code;
  }
  return undefined;
}

describe('signed cursors', () => {
  it('give back the position they hold, until they expire', () => {
    const position = { p: 'period', r: 20, g: [3, 5] };
    const text = cursors.sign('leaderboard-records', position, now + 60_000);
    expect(text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(cursors.read('leaderboard-records', text, now)).toEqual(position);
    expect(cursors.read('leaderboard-records', text, now + 59_000)).toEqual(position);
    expect(refusal(() => cursors.read('leaderboard-records', text, now + 60_000))).toBe(ErrorCode.CURSOR_EXPIRED);
  });

  it('read the same on every instance that shares the secret, and on none that does not', () => {
    const text = cursors.sign('storage-objects', 'slot-9', now + 60_000);
    expect(SignedCursors.fromSecret('a-secret-of-the-service-32-characters').read('storage-objects', text, now)).toBe('slot-9');
    expect(refusal(() => SignedCursors.fromSecret('another-secret-of-32-characters!!').read('storage-objects', text, now))).toBe(
      ErrorCode.INVALID_CURSOR,
    );
  });

  it('refuse a position or an expiry changed by the client, and a cursor of another list', () => {
    const text = cursors.sign('leaderboard-records', { s: 1200 }, now + 60_000);
    const [body, mac] = text.split('.');
    const forge = (change: (value: { e: number; p: { s: number } }) => void) => {
      const value = JSON.parse(Buffer.from(body, 'base64url').toString()) as { e: number; p: { s: number } };
      change(value);
      return `${Buffer.from(JSON.stringify(value)).toString('base64url')}.${mac}`;
    };
    expect(
      refusal(() =>
        cursors.read(
          'leaderboard-records',
          forge((value) => (value.p.s = 0)),
          now,
        ),
      ),
    ).toBe(ErrorCode.INVALID_CURSOR);
    expect(
      refusal(() =>
        cursors.read(
          'leaderboard-records',
          forge((value) => (value.e = 9e15)),
          now,
        ),
      ),
    ).toBe(ErrorCode.INVALID_CURSOR);
    expect(refusal(() => cursors.read('storage-objects', text, now))).toBe(ErrorCode.INVALID_CURSOR);
  });

  it('refuse what is not a cursor at all', () => {
    for (const text of [
      '',
      'abc',
      'abc.def',
      `${'a'.repeat(MAX_CURSOR_LENGTH)}.${'b'.repeat(22)}`,
      Buffer.from('{"p":1}').toString('base64url'),
    ]) {
      expect(refusal(() => cursors.read('leaderboard-records', text, now))).toBe(ErrorCode.INVALID_CURSOR);
    }
  });
});
