import type { Caller } from '../common/auth.decorators.js';
import { forbidden, unauthorized } from '../common/errors.js';

/**
 * Acting for a persona (its trades, its skill progress) is its owner's or an admin's; anonymous callers
 * only where the route allows it (ANONYMOUS_WRITES=true on optional-auth routes). Checked in this order:
 * the token (401), the persona's existence (404, the service's), then its owner (403: acting for a
 * persona names it on purpose, unlike browsing, so it is not hidden as 404).
 */
export function requireTokenToActForPersona(caller: Caller | undefined, anonymousAllowed: boolean): void {
  if (caller === undefined && !anonymousAllowed) throw unauthorized('this needs a token: send "Authorization: jwt <token>"');
}

export function requireMayActFor(caller: Caller | undefined, personaUid: string, ownerUid: string): void {
  if (caller && !caller.isAdmin && caller.uid !== ownerUid) {
    throw forbidden(`only the owner of persona ${personaUid} or an admin may do this`);
  }
}
