import type { Caller } from '../common/auth.decorators.js';
import { forbidden } from '../common/errors.js';
import { requireHostOrAdmin } from '../common/policy.js';
import { verifySessionPassword } from './session-password.js';
import type { Session } from './session.entity.js';

/** Updates and deletes are the host's or an admin's. */
export function requireMayChangeSession(caller: Caller, session: Session): void {
  requireHostOrAdmin(caller, session, 'session');
}

/** Who may take a seat: anyone in a PUBLIC session, invited users in an INVITE_ONLY one; the host and admins always. */
export function requireMayEnterSession(caller: Caller, session: Session): void {
  if (caller.isAdmin || session.hostUid === caller.uid) return;
  if (session.visibility === 'LOCKED') throw forbidden('this session is locked');
  if (session.visibility === 'INVITE_ONLY' && !session.invited.includes(caller.uid)) throw forbidden('this session is by invitation only');
}

/** A session with a password lets in who knows it; the host, invited users and admins need none. */
export async function requireSessionPassword(caller: Caller, session: Session, password: string | undefined): Promise<void> {
  if (!session.passwordHash || caller.isAdmin || session.hostUid === caller.uid || session.invited.includes(caller.uid)) return;
  if (password === undefined || !(await verifySessionPassword(password, session.passwordHash))) {
    throw forbidden(password === undefined ? 'this session needs a password (?password=)' : 'wrong session password');
  }
}
