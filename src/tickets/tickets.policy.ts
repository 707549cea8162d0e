import type { Caller } from '../common/auth.decorators.js';
import { badRequest, forbidden } from '../common/errors.js';
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

/**
 * Accepting or declining a party is for the users the ticket names, each for themselves (an admin
 * answers for nobody); the host agreed by queueing and cancels rather than declines.
 */
export function requireMayAnswerTicket(caller: Caller, ticket: Ticket, { decline = false } = {}): void {
  if (!ticket.users.includes(caller.uid)) throw forbidden('only the users a ticket names accept or decline it, each for themselves');
  if (decline && ticket.hostUid === caller.uid) {
    throw forbidden('the host does not decline their own ticket: set it INVALID or delete it');
  }
}
