import { badRequest, type ErrorDetail } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import type { Criterion, Primitive, Statistic, TicketStatus } from './ticket.entity.js';

export interface TicketShape {
  numTeams: number;
  teamSize: number;
  users: string[];
  criteria: Criterion[];
  statistics: Statistic[];
}

/**
 * The rules between a ticket's fields, checked on the merged record at create and update: the party
 * fits on one team, statistic names are distinct, and every criterion names one of the ticket's own
 * statistics (so that the others' criteria can be checked against it both ways) with sane bounds.
 */
export function checkTicket(ticket: TicketShape): void {
  const errors: ErrorDetail[] = [];
  if (ticket.numTeams * ticket.teamSize > LIMITS.sessionPlayers) {
    errors.push({ field: 'teamSize', message: `numTeams × teamSize must not exceed ${LIMITS.sessionPlayers} (the session it asks for)` });
  }
  if (ticket.users.length > ticket.teamSize) {
    errors.push({ field: 'users', message: `a party of ${ticket.users.length} does not fit on a team of ${ticket.teamSize}` });
  }
  if (new Set(ticket.users).size !== ticket.users.length) errors.push({ field: 'users', message: 'lists a user twice' });
  const names = ticket.statistics.map((statistic) => statistic.name);
  if (new Set(names).size !== names.length) errors.push({ field: 'statistics', message: 'names a statistic twice' });
  ticket.criteria.forEach((criterion, index) => {
    const field = `criteria.${index}`;
    if (!names.includes(criterion.name)) {
      errors.push({ field: `${field}.name`, message: `needs a statistic named "${criterion.name}" on this ticket` });
    }
    const { minValue, maxValue } = criterion;
    if (minValue !== undefined && maxValue !== undefined) {
      if (typeof minValue !== typeof maxValue) errors.push({ field, message: 'minValue and maxValue must have the same type' });
      else if (compare(minValue, maxValue) > 0) errors.push({ field, message: 'minValue must not exceed maxValue' });
    }
  });
  if (errors.length > 0) throw badRequest(errors.map((error) => `${error.field} ${error.message}`).join('; '), errors);
}

/** Orders two primitives of the same type (false < true; strings by code point). */
export function compare(a: Primitive, b: Primitive): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** What decides who must still accept a ticket, and so its status. */
export interface PartyInput {
  users: string[];
  hostUid: string;
  /** Who had accepted before this write (nobody, on create). */
  accepted: string[];
  /** The status asked for, or the current one. */
  status: TicketStatus;
  /** An admin's write (a game server's): everyone it names counts as agreed. */
  trusted: boolean;
}

/**
 * Parties by consent: the host agrees by queueing, each other user by accepting. A ticket that waits
 * for someone cannot be SEARCHING: it stays INITIALIZING, whatever was asked, until the last of them
 * accepts (POST /tickets/{id}/accept). Users removed from the party lose their acceptance.
 */
export function partyState({ users, hostUid, accepted, status, trusted }: PartyInput): { status: TicketStatus; accepted: string[] } {
  const agreed = trusted ? [...users] : users.filter((user) => user === hostUid || accepted.includes(user));
  const waiting = agreed.length < users.length;
  return { status: status === 'SEARCHING' && waiting ? 'INITIALIZING' : status, accepted: agreed };
}

/** A ticket someone is queued on already. */
export interface QueuedTicket {
  uid: string;
  users: string[];
}

/**
 * One queue place per player (MATCHMAKER_TICKETS_PER_USER): the first of `users` who is already on
 * `limit` queued tickets, and one of those tickets; undefined when everyone has room.
 */
export function queueConflict(users: string[], queued: QueuedTicket[], limit: number): { userUid: string; ticketUid: string } | undefined {
  for (const userUid of users) {
    const holding = queued.filter((ticket) => ticket.users.includes(userUid));
    if (holding.length >= limit) return { userUid, ticketUid: holding[0].uid };
  }
  return undefined;
}
