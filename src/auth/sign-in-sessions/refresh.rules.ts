/** What a refresh token presented finds (PresentedRefreshToken, with the session's revocation). */
export interface RefreshFacts {
  banned: boolean;
  revoked: boolean;
  expired: boolean;
  spent: boolean;
  /** Spent within REFRESH_REUSE_GRACE. */
  spentRecently: boolean;
}

/**
 * What becomes of a refresh (RFC 9700 section 4.14.2, refresh token rotation):
 * - `rotate`: the token is spent and the session's next pair issued;
 * - `banned`: the user is banned (403, with the ban's end);
 * - `revoked`, `expired`: the session is over (401: sign in again);
 * - `concurrent`: another refresh spent this token a moment ago (409): the client keeps that one's
 *   answer, and nothing is revoked: two threads of one game refreshing at once are not an attack;
 * - `replay`: a token spent earlier is back: one of the two holders is a thief, and nobody can tell
 *   which, so the whole session is revoked (401).
 */
export type RefreshVerdict = 'rotate' | 'banned' | 'revoked' | 'expired' | 'concurrent' | 'replay';

export function refreshVerdict(facts: RefreshFacts): RefreshVerdict {
  if (facts.banned) return 'banned';
  if (facts.revoked) return 'revoked';
  if (facts.expired) return 'expired';
  if (facts.spentRecently) return 'concurrent';
  if (facts.spent) return 'replay';
  return 'rotate';
}
