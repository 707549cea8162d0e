import type { DataOf, EventDeclarations } from '../realtime/events.js';
import { TicketChange } from './dto/ticket-change.dto.js';

/** The events tickets/ sends (docs/REALTIME.md). */
export const TICKET_EVENTS = {
  'ticket.updated': { data: TicketChange, description: 'The ticket in brief: MATCH_FOUND with sessionUid once matched.' },
} as const satisfies EventDeclarations;

declare module '../realtime/events.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declarations above, by type
  interface EventMap extends DataOf<typeof TICKET_EVENTS> {}
}
