import type { Caller } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import { requireHostOrAdmin } from '../common/policy.js';
import type { Ticket } from './ticket.entity.js';

/** Updates and deletes are the host's or an admin's. */
export function requireMayChangeTicket(caller: Caller, ticket: Ticket): void {
  requireHostOrAdmin(caller, ticket, 'ticket');
}

/** A player's ticket includes its host, so that nobody queues a party of strangers without being in it (admins and servers may). */
export function requireHostInParty(caller: Caller, users: string[], hostUid = caller.uid): void {
  if (!caller.isAdmin && !users.includes(hostUid)) {
    throw badRequest('the ticket must include its host among its users', [{ field: 'users', message: 'must include the host' }]);
  }
}
