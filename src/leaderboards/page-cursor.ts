import { badRequest } from '../common/errors.js';

/**
 * Where the next page of a period's records starts, and the moment the first page was read: the last
 * key and rank shown, and (open periods) the log position the rank structure stood at then, so that
 * every page shows the ranks of that one moment (no record skipped or repeated while scores move).
 * Opaque to clients: base64url of a small JSON.
 */
export interface PageCursor {
  /** The period. */
  p: string;
  /** The last rank shown. */
  r: number;
  /** Open periods: the last key shown, the log position and the awaited numbers of the moment, and when it was (epoch ms). */
  k?: string;
  s?: number;
  g?: number[];
  t?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY = /^[0-9a-f]{80}$/;
export const MAX_CURSOR_LENGTH = 4096;

export const encodeCursor = (cursor: PageCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

const invalid = () =>
  badRequest('cursor is not one this service gave: start from the first page', [{ field: 'cursor', message: 'malformed' }]);

export function decodeCursor(text: string): PageCursor {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const cursor = value as Partial<PageCursor>;
  const count = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  const open = cursor.k !== undefined;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof cursor.p !== 'string' ||
    !UUID.test(cursor.p) ||
    !count(cursor.r) ||
    (open &&
      (typeof cursor.k !== 'string' ||
        !KEY.test(cursor.k) ||
        !count(cursor.s) ||
        !count(cursor.t) ||
        !Array.isArray(cursor.g) ||
        !cursor.g.every(count)))
  ) {
    throw invalid();
  }
  return cursor as PageCursor;
}
