import { badRequest, type ErrorDetail } from '../common/errors.js';
import type { Criterion, Primitive, Statistic } from './ticket.entity.js';

export interface TicketShape {
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
