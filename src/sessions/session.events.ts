import type { DataOf, EventDeclarations } from '../realtime/events.js';
import { SessionBrief, SessionChange, SessionRemoval } from './dto/session-events.dto.js';

/** The events sessions/ sends (docs/REALTIME.md). */
export const SESSION_EVENTS = {
  'session.updated': { data: SessionChange },
  'session.deleted': { data: SessionRemoval },
  'session.invited': { data: SessionBrief, description: 'The session you were invited to: join it with GET /sessions/{uid}/join.' },
} as const satisfies EventDeclarations;

declare module '../realtime/events.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declarations above, by type
  interface EventMap extends DataOf<typeof SESSION_EVENTS> {}
}
