import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import { READ_ONLY_UID, ReadOnlyField } from '../../common/fields.js';
import { LIMITS } from '../../common/limits.js';
import { RecordBodyDto } from '../../common/record.dto.js';
import { EachNested, IsOmittable } from '../../common/validators.js';
import { SESSION_STATUSES, SESSION_VISIBILITIES, type SessionStatus, type SessionVisibility } from '../session.entity.js';

/** Characters of a session's join password. */
export const MAX_SESSION_PASSWORD = 200;

export class TeamDto {
  @ApiProperty({ type: 'integer', example: 0 })
  @IsInt()
  @Min(0)
  @Max(10_000)
  id: number;

  @ApiProperty({ type: [String], format: 'uuid', maxItems: LIMITS.sessionPlayers, example: ['4c1b3a3e-8a53-4f6e-9d1c-2b7f0e9a6d15'] })
  @IsArray()
  @ArrayMaxSize(LIMITS.sessionPlayers)
  @IsUUID('all', { each: true })
  members: string[];
}

export class CreateSessionDto extends RecordBodyDto {
  /** How many teams (1..100). */
  @ApiProperty({ type: 'integer', example: 2 })
  @IsInt()
  @Min(1)
  @Max(LIMITS.sessionTeams)
  numTeams: number;

  /** Seats per team (1..100); the session holds numTeams × teamSize users, at most 100 (src/common/limits.ts). */
  @ApiProperty({ type: 'integer', example: 4 })
  @IsInt()
  @Min(1)
  @Max(LIMITS.sessionPlayers)
  teamSize: number;

  /** Default WAITING_FOR_PLAYERS. */
  @ApiProperty({ enum: SESSION_STATUSES, enumName: 'SessionStatus', required: false })
  @IsOmittable()
  @IsIn(SESSION_STATUSES)
  status?: SessionStatus;

  /** Default PUBLIC. */
  @ApiProperty({ enum: SESSION_VISIBILITIES, enumName: 'SessionVisibility', required: false })
  @IsOmittable()
  @IsIn(SESSION_VISIBILITIES)
  visibility?: SessionVisibility;

  /**
   * Members; default: the creator alone. Users not placed in `teams` sit on the first team with room.
   * Only users who joined stay members: anyone else named here is invited instead (the caller may seat
   * themselves; an admin may seat anyone).
   */
  @ApiProperty({
    type: [String],
    format: 'uuid',
    required: false,
    maxItems: LIMITS.sessionPlayers,
    example: ['4c1b3a3e-8a53-4f6e-9d1c-2b7f0e9a6d15'],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(LIMITS.sessionPlayers)
  @IsUUID('all', { each: true })
  users?: string[];

  /** Exactly numTeams teams with distinct ids; default: empty teams 0..numTeams-1. */
  @ApiProperty({
    type: [TeamDto],
    required: false,
    maxItems: LIMITS.sessionTeams,
    example: [
      { id: 0, members: ['4c1b3a3e-8a53-4f6e-9d1c-2b7f0e9a6d15'] },
      { id: 1, members: [] },
    ],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(LIMITS.sessionTeams)
  @EachNested()
  @Type(() => TeamDto)
  teams?: TeamDto[];

  /** Users who may see and join the session even when it is INVITE_ONLY; each newly invited one gets a `session.invited` event. */
  @ApiProperty({
    type: [String],
    format: 'uuid',
    required: false,
    maxItems: LIMITS.sessionInvited,
    example: ['9e7d2f41-0c6b-4b8a-a3d5-7f1e6c2b9a80'],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(LIMITS.sessionInvited)
  @IsUUID('all', { each: true })
  invited?: string[];

  /** Let the matchmaker fill open seats with compatible SEARCHING tickets (default false). */
  @ApiProperty({ type: 'boolean', required: false, default: false, example: false })
  @IsOmittable()
  @IsBoolean()
  backfill?: boolean;

  /** Join password (sent to join in the `X-Session-Password` header). Write-only: stored hashed, never returned; null removes it. */
  @ApiProperty({ type: 'string', nullable: true, required: false, writeOnly: true, example: 'open sesame' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_SESSION_PASSWORD)
  password?: string | null;

  // Set by the service; a client may send them back with a session it read.
  @ApiProperty(READ_ONLY_UID)
  @ReadOnlyField()
  hostUid?: never;

  @ApiProperty({ ...READ_ONLY_UID, nullable: true })
  @ReadOnlyField()
  serverUid?: never;
}
