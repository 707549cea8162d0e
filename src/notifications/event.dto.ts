import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Alternatives } from '../common/fields.js';
import type { EventData, EventType } from '../realtime/events.js';
import { EVENT_TYPES, EVENTS } from './events.js';

// The events of /realtime and GET /notifications, for the OpenAPI document: one schema per type
// (docs/REALTIME.md), made from the catalog of events (./events.ts). Events of records many players follow
// (tickets, sessions) carry them in brief; those of one player's economy carry the record as the REST
// API returns it.

export class RealtimeTicketDto {
  @ApiProperty({
    description: 'Open the socket with `/realtime?ticket=<ticket>` within 30 s; it works once.',
    example: 'kq3v0v2oVw2Qm1y9Pj0m2bIY3x3x3x3x3x3x3x3x3x3',
  })
  ticket: string;

  @ApiProperty({ type: 'string', format: 'date-time', example: '2026-11-24T12:00:30.000Z' })
  expiresAt: Date;
}

/** What every event has: its place in the inbox and its time. */
abstract class EventFrame {
  @ApiProperty({
    description: "The event's place in your inbox: resume after it with ?after=<id>. Opaque; it grows.",
    pattern: '^[0-9]{1,20}-[0-9]{1,20}$',
    example: '1024-57',
  })
  id: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the change was written.', example: '2026-11-24T12:00:00.123Z' })
  at: string;
}

/**
 * The frame of one type of event, a component schema named for it (`ticket.updated`:
 * TicketUpdatedEvent): clients and their generators know the events by these names.
 */
function eventFrame<K extends EventType>(type: K) {
  const { data, description }: { data: new () => object; description?: string } = EVENTS[type];
  @ApiSchema({ name: frameName(type) })
  class Frame extends EventFrame {
    @ApiProperty({ enum: [type], example: type })
    type: K;
    @ApiProperty({ type: data, description })
    data: EventData[K];
  }
  return Frame;
}

const frameName = (type: EventType) =>
  `${type
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')}Event`;

/** Every event's schema, in the order of the map: the document's `oneOf` of an event. */
export const EVENT_SCHEMAS = EVENT_TYPES.map(eventFrame);

/**
 * Any event, told apart by `type`: generated clients read a frame or an inbox entry as this base and get
 * the event's own class (unknown types, from a newer service, stay the base).
 */
@Alternatives({
  propertyName: 'type',
  mapping: Object.fromEntries(EVENT_TYPES.map((type, index) => [type, () => EVENT_SCHEMAS[index]])),
  description: 'What happened (docs/REALTIME.md lists the types and who receives them).',
  example: { id: '1024-57', type: 'achievement.unlocked', at: '2026-11-24T12:00:00.123Z' },
})
export class RealtimeEvent extends EventFrame {
  type: string;
}
