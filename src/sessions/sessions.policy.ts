import type { Caller } from '../common/auth.decorators.js';
import { conflict, ErrorCode, forbidden } from '../common/errors.js';
import { requireHostOrAdmin } from '../common/policy.js';
import type { Session } from './session.entity.js';

/** Updates and deletes are the host's or an admin's. */
export function requireMayChangeSession(caller: Caller, session: Session): void {
  requireHostOrAdmin(caller, session, 'session');
}

/**
 * Who may take a seat: anyone in a PUBLIC session, invited users in an INVITE_ONLY one; the host and
 * admins always; nobody in a session that has ENDED (409).
 */
export function requireMayJoinSession(caller: Caller, session: Session): void {
  if (!caller.isAdmin && session.hostUid !== caller.uid) {
    if (session.visibility === 'LOCKED') throw forbidden('this session is locked');
    if (session.visibility === 'INVITE_ONLY' && !session.invited.includes(caller.uid))
      throw forbidden('this session is by invitation only');
  }
  if (session.status === 'ENDED') throw conflict(ErrorCode.CONFLICT, 'this session has ended');
}

/** A session with a password lets in who knows it; the host, invited users and admins need none. */
export function needsPassword(caller: Caller, session: Session): boolean {
  return session.passwordHash !== null && !caller.isAdmin && session.hostUid !== caller.uid && !session.invited.includes(caller.uid);
}
