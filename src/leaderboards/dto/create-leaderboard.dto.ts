import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { LIMITS } from '../../common/limits.js';
import { RecordBodyDto } from '../../common/record.dto.js';
import { EachNested, IsOmittable, jsonObjectBounds } from '../../common/validators.js';
import { ReadOnlyField } from '../../common/fields.js';
import { ItemQuantityDto } from '../../economy/dto/create-transaction.dto.js';
import { ENTRANTS, type Entrant } from '../leaderboard.entity.js';
import { OPERATORS, type Operator, SORT_ORDERS, type SortOrder } from '../rules/operators.js';
import { IsInt64, IsSmallObject } from './int64.validators.js';

export class RewardTierDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: LIMITS.leaderboardRewardRank, example: 1 })
  @IsInt()
  @Min(1)
  @Max(LIMITS.leaderboardRewardRank)
  rankFrom: number;

  /** The last rank of the tier (inclusive), at least rankFrom. Tiers may not overlap. */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: LIMITS.leaderboardRewardRank, example: 3 })
  @IsInt()
  @Min(1)
  @Max(LIMITS.leaderboardRewardRank)
  rankTo: number;

  @ApiProperty({ type: [ItemQuantityDto], minItems: 1, maxItems: LIMITS.leaderboardRewardItems })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.leaderboardRewardItems)
  @EachNested()
  @Type(() => ItemQuantityDto)
  items: ItemQuantityDto[];
}

/**
 * A leaderboard, or a tournament. `sortOrder`, `operator`, `subscoreSortOrder`, `subscoreOperator`,
 * `resetSchedule`, `startAt`, `endAt`, `duration` and `entrant` cannot change once the board exists (409
 * IMMUTABLE_SETTING naming them): they decide what stored scores mean, which period they belong to and
 * whose they are.
 */
export class CreateLeaderboardDto extends RecordBodyDto {
  @ApiProperty({ example: 'Weekly high scores' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ type: 'string', nullable: true, required: false, example: 'Highest score of the week; resets on Mondays.' })
  @IsOptional()
  @IsString()
  @Length(0, 4000)
  description?: string | null;

  /** DESC (default): the highest score ranks first; ASC: the lowest (a fastest time). */
  @ApiProperty({ enum: SORT_ORDERS, enumName: 'SortOrder', required: false, default: 'DESC' })
  @IsOmittable()
  @IsIn(SORT_ORDERS)
  sortOrder?: SortOrder;

  /** BEST (default) keeps the better score, SET replaces it, INCREMENT adds to it, DECREMENT subtracts from it. */
  @ApiProperty({ enum: OPERATORS, enumName: 'ScoreOperator', required: false, default: 'BEST' })
  @IsOmittable()
  @IsIn(OPERATORS)
  operator?: Operator;

  /** How subscores sort (among equal scores); default: as scores. */
  @ApiProperty({ enum: SORT_ORDERS, enumName: 'SortOrder', required: false })
  @IsOmittable()
  @IsIn(SORT_ORDERS)
  subscoreSortOrder?: SortOrder;

  /** How a submission changes the subscore; default: the score's operator. Both BEST: the better pair is kept whole. */
  @ApiProperty({ enum: OPERATORS, enumName: 'ScoreOperator', required: false })
  @IsOmittable()
  @IsIn(OPERATORS)
  subscoreOperator?: Operator;

  /** A cron schedule in UTC (5 fields, or 6 with seconds first): each time begins a new period. */
  @ApiProperty({ type: 'string', nullable: true, required: false, maxLength: 100, example: '0 0 * * 1' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  resetSchedule?: string | null;

  /** Only admins (game servers) may submit. */
  @ApiProperty({ required: false, default: false, example: false })
  @IsOmittable()
  @IsBoolean()
  authoritative?: boolean;

  @IsOptional()
  @IsInt64({ description: 'Submitted scores below it are refused.', required: false, nullable: true, example: 0 })
  minScore?: number | string | null;

  @IsOptional()
  @IsInt64({ description: 'Submitted scores above it are refused.', required: false, nullable: true, example: 1_000_000_000 })
  maxScore?: number | string | null;

  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: false,
    additionalProperties: true,
    ...jsonObjectBounds(LIMITS.leaderboardMetadataBytes),
    description: `At most ${LIMITS.leaderboardMetadataBytes} bytes of JSON.`,
    example: { season: 3 },
  })
  @IsOptional()
  @IsSmallObject(LIMITS.leaderboardMetadataBytes)
  metadata?: Record<string, unknown> | null;

  /** When the first period begins (default: now). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, required: false, example: '2027-01-04T00:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  startAt?: string | null;

  /** When the last period closes (after startAt). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, required: false, example: '2027-04-05T00:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  endAt?: string | null;

  /** Seconds each period takes scores, from its beginning (at most a year). */
  @ApiProperty({ type: 'integer', nullable: true, required: false, minimum: 1, maximum: 31_536_000, example: 86_400 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(31_536_000)
  duration?: number | null;

  @ApiProperty({ type: 'integer', nullable: true, required: false, minimum: 1, maximum: 10_000_000, example: 10_000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  maxSize?: number | null;

  @ApiProperty({ type: 'integer', nullable: true, required: false, minimum: 1, maximum: 1_000_000, example: 5 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  maxNumScore?: number | null;

  @ApiProperty({ required: false, default: false, example: true })
  @IsOmittable()
  @IsBoolean()
  joinRequired?: boolean;

  @ApiProperty({ type: [RewardTierDto], required: false, maxItems: LIMITS.leaderboardRewardTiers })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(LIMITS.leaderboardRewardTiers)
  @EachNested()
  @Type(() => RewardTierDto)
  rewards?: RewardTierDto[];

  /**
   * Who enters a period: USER, one persona per user (the first of theirs to join or score; the others
   * are 409 ALREADY_ENTERED), so that seats, attempts, ranks and prizes are each user's once; PERSONA,
   * each persona on its own. Default: USER on a board created with `rewards` or a `maxSize`, PERSONA
   * otherwise.
   */
  @ApiProperty({ enum: ENTRANTS, enumName: 'LeaderboardEntrant', required: false, example: 'USER' })
  @IsOmittable()
  @IsIn(ENTRANTS)
  entrant?: Entrant;

  @ApiProperty({ type: 'integer', required: false, default: 10, minimum: 0, maximum: 100, example: 10 })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(100)
  rankLostTop?: number;

  @ApiProperty({ type: 'integer', required: false, default: 10, minimum: 1, maximum: 1000, example: 10 })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(1000)
  keepPeriods?: number;

  /** Set by POST /leaderboards/{id}/reset; a client may send it back with a board it read. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, readOnly: true, required: false })
  @ReadOnlyField()
  resetAt?: never;
}
