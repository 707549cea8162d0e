import { ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { Session } from '../sessions/session.entity.js';

export const TICKET_STATUSES = ['INITIALIZING', 'SEARCHING', 'MATCH_FOUND', 'INVALID'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** Statuses of a ticket still in the queue: each of its users holds a queue place. */
export const QUEUED_TICKET_STATUSES = ['INITIALIZING', 'SEARCHING'] as const;

/**
 * Why a ticket ended INVALID: a user it named declined, it expired, its host (or an admin) set it
 * INVALID, or another ticket of one of its users was matched (only with MATCHMAKER_TICKETS_PER_USER > 1).
 */
export const TICKET_END_REASONS = ['DECLINED', 'EXPIRED', 'CANCELED', 'MATCHED_ELSEWHERE'] as const;
export type TicketEndReason = (typeof TICKET_END_REASONS)[number];

export type Primitive = string | number | boolean;

const PRIMITIVE_SCHEMA = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };

/** A requirement on the other tickets: their statistic `name` must lie in [minValue, maxValue]. */
export class Criterion {
  @ApiProperty({ example: 'skill' })
  name: string;

  @ApiProperty({ ...PRIMITIVE_SCHEMA, required: false, example: 1000 })
  minValue?: Primitive;

  @ApiProperty({ ...PRIMITIVE_SCHEMA, required: false, example: 1400 })
  maxValue?: Primitive;
}

export class Statistic {
  @ApiProperty({ example: 'skill' })
  name: string;

  @ApiProperty({ ...PRIMITIVE_SCHEMA, example: 1200 })
  value: Primitive;
}

/** A request to be matched: one player or a party, waiting for a session with others like them. */
@Entity('tickets')
@Index('tickets_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Index('tickets_users_idx', ['users'], { type: 'gin' })
@Index('tickets_hostUid_idx', ['hostUid'])
@Index('tickets_searching_idx', ['dateCreated', 'uid'], { where: `"status" = 'SEARCHING'` })
@Index('tickets_expiresAt_idx', ['expiresAt'], { where: `"status" IN ('SEARCHING', 'INITIALIZING')` })
@Index('tickets_matched_idx', ['dateModified'], { where: `"status" = 'MATCH_FOUND'` })
@Check('tickets_status_check', `"status" IN ('INITIALIZING', 'SEARCHING', 'MATCH_FOUND', 'INVALID')`)
@Check('tickets_numTeams_check', '"numTeams" >= 1')
@Check('tickets_teamSize_check', '"teamSize" >= 1')
@Check('tickets_party_check', '"numUsers" = cardinality("users") AND "numUsers" <= "teamSize"')
@Check('tickets_reason_check', `"reason" IN ('DECLINED', 'EXPIRED', 'CANCELED', 'MATCHED_ELSEWHERE')`)
@Check('tickets_accepted_check', '"accepted" <@ "users"')
export class Ticket extends RecordEntity {
  /**
   * SEARCHING tickets are matched; a party waits INITIALIZING until everyone it names has accepted;
   * MATCH_FOUND is set by the matchmaker only; INVALID ends a ticket (see `reason`).
   */
  @ApiProperty({ enum: TICKET_STATUSES, enumName: 'TicketStatus', example: 'SEARCHING' })
  @Column({ type: 'text', default: 'SEARCHING' })
  @Filterable({ enum: TICKET_STATUSES })
  status: TicketStatus;

  /** What this ticket asks of the others; criteria of one name are OR-ed, of different names AND-ed. */
  @ApiProperty({ type: [Criterion] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  criteria: Criterion[];

  /** What this ticket offers: the values the others' criteria are checked against. */
  @ApiProperty({ type: [Statistic] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  statistics: Statistic[];

  /** Teams in the session wanted; only tickets with equal numTeams and teamSize are matched. */
  @ApiProperty({ example: 2 })
  @Column({ type: 'integer' })
  @Filterable()
  numTeams: number;

  @ApiProperty({ example: 2 })
  @Column({ type: 'integer', default: 1 })
  @Filterable()
  teamSize: number;

  /** The number of users on the ticket (a party stays on one team). */
  @ApiProperty({ example: 1 })
  @Column({ type: 'integer' })
  @Filterable()
  numUsers: number;

  @ApiProperty({ type: [String], format: 'uuid' })
  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  users: string[];

  /** The user who created the ticket. */
  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => User, { name: 'tickets_hostUid_fkey', onDelete: 'CASCADE' })
  @Filterable()
  hostUid: string;

  /** Users who agreed to be on the ticket: its host at once, the others by accepting. */
  @ApiProperty({ type: [String], format: 'uuid' })
  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  accepted: string[];

  /** When the ticket leaves the queue unmatched (INVALID, reason EXPIRED). */
  @ApiProperty({ type: 'string', format: 'date-time', example: '2026-11-24T12:05:00.000Z' })
  @Column({ type: 'timestamptz', precision: 3 })
  @Filterable()
  expiresAt: Date;

  /** Why the ticket ended INVALID; null while it is queued or once matched. */
  @ApiProperty({ enum: TICKET_END_REASONS, enumName: 'TicketEndReason', nullable: true, example: null })
  @Column({ type: 'text', nullable: true })
  @Filterable({ enum: TICKET_END_REASONS })
  reason: TicketEndReason | null;

  /** The session the matchmaker placed the ticket in (also pushed as ticket.updated). */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => Session, { name: 'tickets_sessionUid_fkey', onDelete: 'SET NULL' })
  @Filterable()
  sessionUid: string | null;
}
