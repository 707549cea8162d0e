import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsString,
  IsUUID,
  Length,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { READ_ONLY_UID, ReadOnlyField } from '../../common/fields.js';
import { LIMITS } from '../../common/limits.js';
import { RecordBodyDto } from '../../common/record.dto.js';
import { EachNested, IsOmittable, IsPrimitiveValue } from '../../common/validators.js';
import type { Primitive } from '../ticket.entity.js';

/** Statuses a client may set; MATCH_FOUND belongs to the matchmaker. */
export const CLIENT_TICKET_STATUSES = ['INITIALIZING', 'SEARCHING', 'INVALID'] as const;
const PRIMITIVE_SCHEMA = { oneOf: [{ type: 'string', maxLength: LIMITS.ticketValueLength }, { type: 'number' }, { type: 'boolean' }] };

export class CriterionDto {
  /** The statistic the other tickets are checked on. */
  @ApiProperty({ example: 'skill' })
  @IsString()
  @Length(1, LIMITS.ticketNameLength)
  name: string;

  /** Inclusive lower bound (a string, number or boolean; compared with values of the same type). */
  @ApiProperty({ ...PRIMITIVE_SCHEMA, required: false, example: 1000 })
  @ValidateIf((_criterion, value) => value !== undefined)
  @IsPrimitiveValue(LIMITS.ticketValueLength)
  minValue?: Primitive;

  /** Inclusive upper bound. */
  @ApiProperty({ ...PRIMITIVE_SCHEMA, required: false, example: 1400 })
  @ValidateIf((_criterion, value) => value !== undefined)
  @IsPrimitiveValue(LIMITS.ticketValueLength)
  maxValue?: Primitive;
}

export class StatisticDto {
  @ApiProperty({ example: 'skill' })
  @IsString()
  @Length(1, LIMITS.ticketNameLength)
  name: string;

  @ApiProperty({ ...PRIMITIVE_SCHEMA, example: 1200 })
  @IsPrimitiveValue(LIMITS.ticketValueLength)
  value: Primitive;
}

export class CreateTicketDto extends RecordBodyDto {
  /** Teams in the session wanted (1..100). */
  @ApiProperty({ type: 'integer', example: 2 })
  @IsInt()
  @Min(1)
  @Max(LIMITS.sessionTeams)
  numTeams: number;

  /** Seats per team (1..100, default 1; numTeams × teamSize at most 100, as for a session). The ticket's users must fit on one team. */
  @ApiProperty({ type: 'integer', example: 2, required: false, default: 1 })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(LIMITS.sessionPlayers)
  teamSize?: number;

  /**
   * The party (1..100 users, each an existing user); default: the creator alone. A player's own ticket
   * must include them; the others must accept it (POST /tickets/{id}/accept) before it is matched.
   */
  @ApiProperty({
    type: [String],
    format: 'uuid',
    required: false,
    maxItems: LIMITS.ticketUsers,
    example: ['4c1b3a3e-8a53-4f6e-9d1c-2b7f0e9a6d15'],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.ticketUsers)
  @IsUUID('all', { each: true })
  users?: string[];

  /** The number of users (1..100, as the party); the service sets it from `users`, and a different value is refused. */
  @ApiProperty({ type: 'integer', example: 1, required: false })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(100)
  numUsers?: number;

  /** Requirements on the other tickets' statistics; each needs a statistic of its name on this ticket. */
  @ApiProperty({
    type: [CriterionDto],
    required: false,
    maxItems: LIMITS.ticketCriteria,
    example: [{ name: 'skill', minValue: 1000, maxValue: 1400 }],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(LIMITS.ticketCriteria)
  @EachNested()
  @Type(() => CriterionDto)
  criteria?: CriterionDto[];

  /** This ticket's values, e.g. skill or region; names are distinct. */
  @ApiProperty({ type: [StatisticDto], required: false, maxItems: LIMITS.ticketStatistics, example: [{ name: 'skill', value: 1200 }] })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(LIMITS.ticketStatistics)
  @EachNested()
  @Type(() => StatisticDto)
  statistics?: StatisticDto[];

  /**
   * SEARCHING (default) is matched; INITIALIZING holds the ticket; INVALID ends it. A party waits
   * INITIALIZING until everyone it names has accepted, whatever is asked. MATCH_FOUND cannot be set.
   */
  @ApiProperty({ enum: CLIENT_TICKET_STATUSES, required: false, default: 'SEARCHING' })
  @IsOmittable()
  @IsIn(CLIENT_TICKET_STATUSES, { message: 'status must be INITIALIZING, SEARCHING or INVALID (MATCH_FOUND is set by the matchmaker)' })
  status?: (typeof CLIENT_TICKET_STATUSES)[number];

  /**
   * When the ticket leaves the queue unmatched (ISO 8601, in the future); at most
   * MATCHMAKER_TICKET_TTL from now, which is also the default.
   */
  @ApiProperty({ type: 'string', format: 'date-time', required: false, example: '2026-11-24T12:05:00.000Z' })
  @IsOmittable()
  @IsISO8601({ strict: true, strictSeparator: true })
  expiresAt?: string;

  // Set by the service; a client may send them back with a ticket it read.
  @ApiProperty(READ_ONLY_UID)
  @ReadOnlyField()
  hostUid?: never;

  @ApiProperty({ type: [String], format: 'uuid', readOnly: true, required: false, example: ['4c1b3a3e-8a53-4f6e-9d1c-2b7f0e9a6d15'] })
  @ReadOnlyField()
  accepted?: never;

  @ApiProperty({ type: 'string', readOnly: true, required: false, nullable: true, example: null })
  @ReadOnlyField()
  reason?: never;

  @ApiProperty({ ...READ_ONLY_UID, nullable: true })
  @ReadOnlyField()
  sessionUid?: never;
}
