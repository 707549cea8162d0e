import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable, Secret } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';

export const SESSION_STATUSES = ['WAITING_FOR_PLAYERS', 'IDLE', 'IN_PROGRESS', 'ENDED'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SESSION_VISIBILITIES = ['PUBLIC', 'INVITE_ONLY', 'LOCKED'] as const;
export type SessionVisibility = (typeof SESSION_VISIBILITIES)[number];

export class Team {
  /** The team's number, 0 to numTeams - 1 unless the creator chose others. */
  @ApiProperty({ type: 'integer', example: 0 })
  id: number;

  /** Uids of the users on the team. */
  @ApiProperty({ type: [String], format: 'uuid' })
  members: string[];
}

/** A game session players join and leave; its capacity is numTeams × teamSize. */
@Entity('sessions')
@Index('sessions_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Index('sessions_users_idx', ['users'], { type: 'gin' })
@Index('sessions_invited_idx', ['invited'], { type: 'gin' })
@Index('sessions_hostUid_idx', ['hostUid'])
@Index('sessions_backfill_idx', ['dateCreated', 'uid'], { where: '"backfill"' })
@Index('sessions_ended_idx', ['dateModified'], { where: `"status" = 'ENDED'` })
@Check('sessions_status_check', `"status" IN ('WAITING_FOR_PLAYERS', 'IDLE', 'IN_PROGRESS', 'ENDED')`)
@Check('sessions_visibility_check', `"visibility" IN ('PUBLIC', 'INVITE_ONLY', 'LOCKED')`)
@Check('sessions_numTeams_check', '"numTeams" >= 1')
@Check('sessions_teamSize_check', '"teamSize" >= 1')
@Check('sessions_capacity_check', 'cardinality("users") <= "numTeams" * "teamSize"')
export class Session extends RecordEntity {
  @ApiProperty({ enum: SESSION_STATUSES, enumName: 'SessionStatus', example: 'WAITING_FOR_PLAYERS' })
  @Column({ type: 'text', default: 'WAITING_FOR_PLAYERS' })
  @Filterable({ enum: SESSION_STATUSES })
  status: SessionStatus;

  /** PUBLIC: anyone signed in sees and joins it; INVITE_ONLY: invited users only; LOCKED: nobody joins. */
  @ApiProperty({ enum: SESSION_VISIBILITIES, enumName: 'SessionVisibility', example: 'PUBLIC' })
  @Column({ type: 'text', default: 'PUBLIC' })
  @Filterable({ enum: SESSION_VISIBILITIES })
  visibility: SessionVisibility;

  @ApiProperty({ example: 2 })
  @Column({ type: 'integer' })
  @Filterable()
  numTeams: number;

  @ApiProperty({ example: 4 })
  @Column({ type: 'integer' })
  @Filterable()
  teamSize: number;

  /** Every member sits in exactly one team. */
  @ApiProperty({ type: [Team] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  teams: Team[];

  /** Uids of the members. */
  @ApiProperty({ type: [String], format: 'uuid' })
  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  users: string[];

  /** Uids of the users invited (they see the session and may join an INVITE_ONLY one). */
  @ApiProperty({ type: [String], format: 'uuid' })
  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  invited: string[];

  /**
   * The matchmaker fills the open seats with compatible SEARCHING tickets (while WAITING_FOR_PLAYERS
   * or IN_PROGRESS), before it makes new sessions.
   */
  @ApiProperty({ example: false })
  @Column({ type: 'boolean', default: false })
  @Filterable()
  backfill: boolean;

  /** Salted scrypt hash of the join password. */
  @Column({ type: 'text', nullable: true })
  @ApiHideProperty()
  @Secret()
  passwordHash: string | null;

  /** The user who hosts the session: its creator, or the next member when the host leaves. */
  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => User, { name: 'sessions_hostUid_fkey', onDelete: 'CASCADE' })
  @Filterable()
  hostUid: string;

  /** The game server running the session, when one is assigned. */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  @Column({ type: 'uuid', nullable: true })
  @Filterable()
  serverUid: string | null;
}
