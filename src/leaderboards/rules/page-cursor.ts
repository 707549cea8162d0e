import { badRequest } from '../../common/errors.js';
import type { SignedCursors } from '../../common/signed-cursors.js';

/**
 * Where the next page of a period's records starts, and the moment the first page was read: the last
 * key and rank shown, and (open periods) the log position the rank structure stood at then, so that
 * every page shows the ranks of that one moment (no record skipped or repeated while scores move).
 * Signed and expiring (SignedCursors): a later page replays the log from the cursor's position, which a
 * client must not choose, and only while the log still holds it.
 */
export interface PageCursor {
  /** The period. */
  p: string;
  /** The last rank shown. */
  r: number;
  /** When the first page was read (epoch ms): every cursor after it expires with it. */
  t: number;
  /** Open periods: the last key shown, and the log position and the awaited numbers of the moment. */
  k?: string;
  s?: number;
  g?: number[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY = /^[0-9a-f]{80}$/;

/** The cursor as text, good for `lifeMs` after its first page. */
export const encodeCursor = (cursors: SignedCursors, cursor: PageCursor, lifeMs: number) =>
  cursors.sign('leaderboard-records', cursor, cursor.t + lifeMs);

/** The cursor a text holds: 400 (INVALID_CURSOR, CURSOR_EXPIRED) unless this service made it for a page of records and it is still good. */
export function decodeCursor(cursors: SignedCursors, text: string): PageCursor {
  const cursor = cursors.read('leaderboard-records', text) as Partial<PageCursor> | null;
  // Signed by this service, so well-formed unless an older release made it with another shape.
  const count = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  const open = cursor?.k !== undefined;
  if (
    typeof cursor !== 'object' ||
    cursor === null ||
    typeof cursor.p !== 'string' ||
    !UUID.test(cursor.p) ||
    !count(cursor.r) ||
    !count(cursor.t) ||
    (open &&
      (typeof cursor.k !== 'string' || !KEY.test(cursor.k) || !count(cursor.s) || !Array.isArray(cursor.g) || !cursor.g.every(count)))
  ) {
    throw badRequest('cursor is not one this release gave: start from the first page', [{ field: 'cursor', message: 'malformed' }]);
  }
  return cursor as PageCursor;
}
