import { ApiProperty } from '@nestjs/swagger';
import { Alternatives } from '../../common/fields.js';
import { AchievementUnlock } from '../../achievements/achievement-unlock.entity.js';
import { InventorySnapshot, InventoryTransaction } from '../../economy/transaction.entity.js';
import { SessionBrief, SessionChange, SessionRemoval } from '../../sessions/dto/session-events.dto.js';
import { TicketChange } from '../../tickets/dto/ticket-change.dto.js';

// The events of /realtime and GET /notifications, for the OpenAPI document: one schema per type
// (docs/REALTIME.md). Events of records many players follow (tickets, sessions) carry them in brief;
// those of one player's economy carry the record as the REST API returns it.

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

export class TicketUpdatedEvent extends EventFrame {
  @ApiProperty({ enum: ['ticket.updated'], example: 'ticket.updated' })
  type: 'ticket.updated';
  @ApiProperty({ type: TicketChange, description: 'The ticket in brief: MATCH_FOUND with sessionUid once matched.' })
  data: TicketChange;
}

export class SessionUpdatedEvent extends EventFrame {
  @ApiProperty({ enum: ['session.updated'], example: 'session.updated' })
  type: 'session.updated';
  @ApiProperty({ type: SessionChange })
  data: SessionChange;
}

export class SessionDeletedEvent extends EventFrame {
  @ApiProperty({ enum: ['session.deleted'], example: 'session.deleted' })
  type: 'session.deleted';
  @ApiProperty({ type: SessionRemoval })
  data: SessionRemoval;
}

export class SessionInvitedEvent extends EventFrame {
  @ApiProperty({ enum: ['session.invited'], example: 'session.invited' })
  type: 'session.invited';
  @ApiProperty({ type: SessionBrief, description: 'The session you were invited to: join it with GET /sessions/{uid}/join.' })
  data: SessionBrief;
}

export class TransactionPendingEvent extends EventFrame {
  @ApiProperty({ enum: ['transaction.pending'], example: 'transaction.pending' })
  type: 'transaction.pending';
  @ApiProperty({ type: InventoryTransaction, description: 'A trade awaiting your persona: accept, decline.' })
  data: InventoryTransaction;
}

export class TransactionUpdatedEvent extends EventFrame {
  @ApiProperty({ enum: ['transaction.updated'], example: 'transaction.updated' })
  type: 'transaction.updated';
  @ApiProperty({ type: InventoryTransaction, description: 'COMPLETED, DECLINED, CANCELED or FAILED.' })
  data: InventoryTransaction;
}

export class InventoryChange {
  @ApiProperty({ format: 'uuid' })
  personaUid: string;
  @ApiProperty({ type: [InventorySnapshot], description: 'The holdings that changed, as they are now (quantity 0: none left).' })
  holdings: InventorySnapshot[];
}

export class InventoryUpdatedEvent extends EventFrame {
  @ApiProperty({ enum: ['inventory.updated'], example: 'inventory.updated' })
  type: 'inventory.updated';
  @ApiProperty({ type: InventoryChange })
  data: InventoryChange;
}

export class AchievementUnlockedEvent extends EventFrame {
  @ApiProperty({ enum: ['achievement.unlocked'], example: 'achievement.unlocked' })
  type: 'achievement.unlocked';
  @ApiProperty({ type: AchievementUnlock })
  data: AchievementUnlock;
}

/**
 * Any event, told apart by `type`: generated clients read a frame or an inbox entry as this base and get
 * the event's own class (unknown types, from a newer service, stay the base).
 */
@Alternatives({
  propertyName: 'type',
  mapping: {
    'ticket.updated': () => TicketUpdatedEvent,
    'session.updated': () => SessionUpdatedEvent,
    'session.deleted': () => SessionDeletedEvent,
    'session.invited': () => SessionInvitedEvent,
    'transaction.pending': () => TransactionPendingEvent,
    'transaction.updated': () => TransactionUpdatedEvent,
    'inventory.updated': () => InventoryUpdatedEvent,
    'achievement.unlocked': () => AchievementUnlockedEvent,
  },
  description: 'What happened (docs/REALTIME.md lists the types and who receives them).',
  example: { id: '1024-57', type: 'achievement.unlocked', at: '2026-11-24T12:00:00.123Z' },
})
export class RealtimeEvent extends EventFrame {
  type: string;
}

export const EVENT_SCHEMAS = [
  TicketUpdatedEvent,
  SessionUpdatedEvent,
  SessionDeletedEvent,
  SessionInvitedEvent,
  TransactionPendingEvent,
  TransactionUpdatedEvent,
  InventoryUpdatedEvent,
  AchievementUnlockedEvent,
];
