import type { EventDeclaration, EventType } from '../realtime/events.js';
import { ACHIEVEMENT_EVENTS } from '../achievements/achievement.events.js';
import { ECONOMY_EVENTS } from '../economy/economy.events.js';
import { LEADERBOARD_EVENTS } from '../leaderboards/leaderboard.events.js';
import { SESSION_EVENTS } from '../sessions/session.events.js';
import { STORAGE_EVENTS } from '../storage/storage.events.js';
import { TICKET_EVENTS } from '../tickets/ticket.events.js';

/**
 * Every event the service pushes, as the features declare them (their `*.events.ts`): the one list the
 * OpenAPI document's event schemas (./event.dto.ts) and the SDK's `RealtimeEvent` union (`npm run sdk`)
 * are derived from. The order is the document's. A feature's event missing here does not compile:
 * the list must name every type of realtime's EventMap.
 */
export const EVENTS = {
  ...TICKET_EVENTS,
  ...SESSION_EVENTS,
  ...ECONOMY_EVENTS,
  ...ACHIEVEMENT_EVENTS,
  ...STORAGE_EVENTS,
  ...LEADERBOARD_EVENTS,
} as const satisfies Record<EventType, EventDeclaration>;

export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];
