import type { Caller } from '../common/auth.decorators.js';
import { unauthorized } from '../common/errors.js';
import { requireAdmin } from '../common/policy.js';

/**
 * Creating a definition is an optional-auth route (interface document): an anonymous caller may create
 * only when ANONYMOUS_WRITES=true (a trusted set-up such as a game server's own network); a signed-in
 * caller must be an admin, as for every catalog write.
 */
export function requireMayCreateAchievement(caller: Caller | undefined, anonymousWrites: boolean): void {
  if (!caller) {
    if (!anonymousWrites) throw unauthorized('creating an achievement needs a token: send "Authorization: jwt <token>"');
    return;
  }
  requireAdmin(caller);
}
