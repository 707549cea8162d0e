import { ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/user.entity.js';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { Session } from '../sessions/session.entity.js';

export const TICKET_STATUSES = ['INITIALIZING', 'SEARCHING', 'MATCH_FOUND', 'INVALID'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

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
@Check('tickets_status_check', `"status" IN ('INITIALIZING', 'SEARCHING', 'MATCH_FOUND', 'INVALID')`)
@Check('tickets_numTeams_check', '"numTeams" >= 1')
@Check('tickets_teamSize_check', '"teamSize" >= 1')
@Check('tickets_party_check', '"numUsers" = cardinality("users") AND "numUsers" <= "teamSize"')
export class Ticket extends RecordEntity {
  /** SEARCHING tickets are matched; MATCH_FOUND is set by the matchmaker only. */
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

  /** The session the matchmaker placed the ticket in; poll the ticket to find it. */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => Session, { name: 'tickets_sessionUid_fkey', onDelete: 'SET NULL' })
  @Filterable()
  sessionUid: string | null;
}
