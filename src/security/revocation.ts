/** Why a session stopped counting (stored on it, and given to sockets as the close reason). */
export type RevocationReason = 'logout' | 'logout-all' | 'revoked' | 'replay' | 'banned' | 'session-limit' | 'identity-unlinked';

/**
 * A revocation, as it travels between instances (the NOTIFY payload) and to this instance's sockets:
 * these sessions of the user no longer count, nor (`notBefore`, epoch ms) any token of the user issued
 * before that time.
 */
export interface Revocation {
  userUid: string;
  sessionUids: string[];
  notBefore?: number;
  reason: RevocationReason;
}

/** The payload of a NOTIFY, if it is a revocation. */
export function parseRevocation(payload: string): Revocation | undefined {
  try {
    const value = JSON.parse(payload) as Partial<Revocation>;
    if (typeof value.userUid !== 'string' || !Array.isArray(value.sessionUids)) return undefined;
    if (value.notBefore !== undefined && typeof value.notBefore !== 'number') return undefined;
    return value as Revocation;
  } catch {
    return undefined;
  }
}
