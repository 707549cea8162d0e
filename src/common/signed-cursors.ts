import { createHmac, createSecretKey, hkdfSync, type KeyObject, timingSafeEqual } from 'node:crypto';
import { HttpStatus } from '@nestjs/common';
import { ApiException, ErrorCode } from './errors.js';

/** Bytes of a cursor's MAC: HMAC-SHA256 cut to 128 bits, as RFC 2104 allows (half or more of the hash). */
const MAC_BYTES = 16;
/** Characters of a cursor at most: a page cursor's moment (its awaited log numbers) stays far below. */
export const MAX_CURSOR_LENGTH = 4096;
/** What a cursor looks like: base64url of its JSON, a dot, base64url of its MAC. */
export const CURSOR_PATTERN = `^[A-Za-z0-9_-]{1,${MAX_CURSOR_LENGTH - MAC_BYTES * 2}}\\.[A-Za-z0-9_-]{22}$`;
const CURSOR = new RegExp(CURSOR_PATTERN);

/**
 * How long a list's cursor lasts unless its list says less (a leaderboard's: while the change log still
 * holds its moment): long enough to page through any list, and a cursor kept, leaked or copied stops
 * naming a position after it.
 */
export const DEFAULT_CURSOR_LIFE_MS = 3_600_000;

/** Where a cursor is used: the MAC covers it, so that a cursor of one list never passes for another's. */
export type CursorKind = 'leaderboard-records' | 'storage-objects' | 'storage-collections';

const invalidCursor = () =>
  new ApiException(HttpStatus.BAD_REQUEST, ErrorCode.INVALID_CURSOR, 'cursor is not one this service gave: start from the first page', {
    errors: [{ field: 'cursor', message: 'not a cursor of this list' }],
  });

/**
 * The opaque cursors the API hands out (`X-Next-Cursor` of a leaderboard, `cursor` of a storage list),
 * made and read in one place: a cursor is its position as JSON with the time it expires, and an HMAC of
 * both under a server key, so that a client can neither make one up (a leaderboard cursor's moment
 * decides how much of the change log a page replays) nor keep one past its time.
 *
 * The key is derived from JWT_SECRET with HKDF, as the device id key is: every instance has that secret
 * already (tokens are verified by whichever instance a request reaches), so a cursor from one instance
 * reads on another with no setting of its own to distribute; HKDF with a label of its own makes a key
 * that tells nothing of the secret nor of the other keys derived from it. Changing JWT_SECRET voids the
 * cursors out (a 400: the client starts from the first page), as it signs everyone out anyway.
 */
export class SignedCursors {
  private constructor(private readonly key: KeyObject) {}

  static fromSecret(jwtSecret: string): SignedCursors {
    return new SignedCursors(createSecretKey(Buffer.from(hkdfSync('sha256', jwtSecret, '', 'game-backend cursors', 32))));
  }

  /** A cursor of `kind` holding `position`, good until `expiresAt` (epoch ms). */
  sign(kind: CursorKind, position: unknown, expiresAt: number): string {
    const body = Buffer.from(JSON.stringify({ e: Math.ceil(expiresAt / 1000), p: position })).toString('base64url');
    return `${body}.${this.mac(kind, body).toString('base64url')}`;
  }

  /**
   * The position a cursor of `kind` holds: 400 INVALID_CURSOR when this service did not make it (for
   * this list), 400 CURSOR_EXPIRED when its time is past. The caller still checks the position's shape.
   */
  read(kind: CursorKind, text: string, now = Date.now()): unknown {
    if (!CURSOR.test(text)) throw invalidCursor();
    const [body, mac] = text.split('.');
    if (!timingSafeEqual(Buffer.from(mac, 'base64url'), this.mac(kind, body))) throw invalidCursor();
    const { e: expires, p: position } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { e: number; p: unknown };
    if (now >= expires * 1000) {
      throw new ApiException(HttpStatus.BAD_REQUEST, ErrorCode.CURSOR_EXPIRED, 'this cursor has expired: start from the first page again', {
        errors: [{ field: 'cursor', message: 'expired' }],
      });
    }
    return position;
  }

  private mac(kind: CursorKind, body: string): Buffer {
    return createHmac('sha256', this.key).update(`${kind}.${body}`).digest().subarray(0, MAC_BYTES);
  }
}
