import type { Caller } from '../common/auth.decorators.js';
import { forbidden } from '../common/errors.js';
import type { Leaderboard } from './leaderboard.entity.js';

/** On an authoritative board only admins (game servers) submit: players cannot post a score of their own. */
export function requireMaySubmit(caller: Caller, board: Pick<Leaderboard, 'authoritative' | 'uid'>): void {
  if (board.authoritative && !caller.isAdmin)
    throw forbidden(`leaderboard ${board.uid} is authoritative: only the game server (an admin) submits scores`);
}

/** A player submits and joins for their own personas; an admin for anyone's. */
export function requireOwnPersona(caller: Caller, personaUid: string, ownerUid: string): void {
  if (!caller.isAdmin && ownerUid !== caller.uid) throw forbidden(`persona ${personaUid} is not one of yours`);
}
