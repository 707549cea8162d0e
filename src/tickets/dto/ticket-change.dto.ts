import { ApiProperty } from '@nestjs/swagger';
import { TICKET_END_REASONS, TICKET_STATUSES, type Ticket, type TicketEndReason, type TicketStatus } from '../ticket.entity.js';

/**
 * What `ticket.updated` carries: where the ticket stands, never its whole body (criteria, statistics,
 * party), so that an event stays small and a party's inboxes cannot be flooded (docs/REALTIME.md). A
 * client that wants the rest reads GET /tickets/{id}.
 */
export class TicketChange {
  @ApiProperty({ format: 'uuid' })
  uid: string;

  @ApiProperty({ type: 'integer', example: 2 })
  version: number;

  @ApiProperty({ enum: TICKET_STATUSES, enumName: 'TicketStatus', example: 'MATCH_FOUND' })
  status: TicketStatus;

  @ApiProperty({ enum: TICKET_END_REASONS, enumName: 'TicketEndReason', nullable: true, example: null })
  reason: TicketEndReason | null;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The session the matchmaker placed the ticket in.' })
  sessionUid: string | null;

  @ApiProperty({ format: 'uuid' })
  hostUid: string;
}

export const ticketChange = ({ uid, version, status, reason, sessionUid, hostUid }: Ticket): TicketChange => ({
  uid,
  version,
  status,
  reason,
  sessionUid,
  hostUid,
});
