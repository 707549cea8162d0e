import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable, Secret } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { ItemQuantityEntry } from '../economy/transaction.entity.js';
import { OPERATORS, type Operator, SORT_ORDERS, type SortOrder } from './rules/operators.js';
import { Int64Property } from './dto/int64.validators.js';
import { int64Json, type Int64Json } from './rules/scores.js';

/** Who enters a board's periods: each user once, with one of their personas, or each persona on its own. */
export const ENTRANTS = ['USER', 'PERSONA'] as const;
export type Entrant = (typeof ENTRANTS)[number];

/** What the personas ranked `rankFrom` to `rankTo` (inclusive) of a closed period receive. */
export class RewardTier {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  rankFrom: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 3 })
  rankTo: number;

  @ApiProperty({ type: [ItemQuantityEntry], description: 'Awarded to each persona in the range, through the economy (an AWARD).' })
  items: ItemQuantityEntry[];
}

/**
 * A leaderboard, or a tournament (a board with a start, an end, a duration, a size or attempts
 * limit, a join rule or rewards). Admins write boards; every signed-in player reads them. The
 * settings that decide what a stored score means (sort orders, operators) and which period it
 * belongs to (resetSchedule, startAt, endAt, duration) never change after creation.
 */
@Entity('leaderboards')
@Index('leaderboards_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Check('leaderboards_sortOrder_check', `"sortOrder" IN ('DESC', 'ASC')`)
@Check('leaderboards_operator_check', `"operator" IN ('BEST', 'SET', 'INCREMENT', 'DECREMENT')`)
@Check('leaderboards_subscoreSortOrder_check', `"subscoreSortOrder" IN ('DESC', 'ASC')`)
@Check('leaderboards_subscoreOperator_check', `"subscoreOperator" IN ('BEST', 'SET', 'INCREMENT', 'DECREMENT')`)
@Check('leaderboards_entrant_check', `"entrant" IN ('USER', 'PERSONA')`)
export class Leaderboard extends RecordEntity {
  @ApiProperty({ example: 'Weekly high scores' })
  @Column({ type: 'text' })
  @Filterable()
  name: string;

  @ApiProperty({ type: 'string', nullable: true })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  description: string | null;

  /** DESC: the highest score ranks first; ASC: the lowest (a fastest time). */
  @ApiProperty({ enum: SORT_ORDERS, enumName: 'SortOrder' })
  @Column({ type: 'text' })
  @Filterable({ enum: SORT_ORDERS })
  sortOrder: SortOrder;

  /** How a submission changes a record: BEST keeps the better, SET replaces, INCREMENT adds, DECREMENT subtracts. */
  @ApiProperty({ enum: OPERATORS, enumName: 'ScoreOperator' })
  @Column({ type: 'text' })
  @Filterable({ enum: OPERATORS })
  operator: Operator;

  @ApiProperty({ enum: SORT_ORDERS, enumName: 'SortOrder' })
  @Column({ type: 'text' })
  subscoreSortOrder: SortOrder;

  @ApiProperty({ enum: OPERATORS, enumName: 'ScoreOperator' })
  @Column({ type: 'text' })
  subscoreOperator: Operator;

  /** A cron schedule in UTC (five fields, or six with seconds first): each time begins a new period. */
  @ApiProperty({ type: 'string', nullable: true, example: '0 0 * * 1' })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  resetSchedule: string | null;

  /** When an admin last reset the board (POST /leaderboards/{id}/reset): the period then open ended there, and the next began. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, readOnly: true })
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  resetAt: Date | null;

  /** Only admins (game servers) submit scores. */
  @ApiProperty()
  @Column({ type: 'boolean', default: false })
  @Filterable()
  authoritative: boolean;

  /** Submitted scores below it are refused (400). */
  @Int64Property({ nullable: true })
  @Column({ type: 'bigint', nullable: true })
  minScore: Int64Json | null;

  /** Submitted scores above it are refused (400). */
  @Int64Property({ nullable: true })
  @Column({ type: 'bigint', nullable: true })
  maxScore: Int64Json | null;

  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true })
  @Column({ type: 'jsonb', nullable: true })
  metadata: Record<string, unknown> | null;

  /** When the first period begins (default: when the board was created). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  @Filterable()
  startAt: Date | null;

  /** When the last period closes; nothing begins from then on. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  @Filterable()
  endAt: Date | null;

  /** Seconds each period takes scores after it begins. */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1 })
  @Column({ type: 'integer', nullable: true })
  duration: number | null;

  /** Personas one period takes at most (joined or scored); then 409 LEADERBOARD_FULL. */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1 })
  @Column({ type: 'integer', nullable: true })
  maxSize: number | null;

  /** Submissions one persona may make in one period; then 409 NO_ATTEMPTS_LEFT. */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1 })
  @Column({ type: 'integer', nullable: true })
  maxNumScore: number | null;

  /** A persona must join a period (POST /leaderboards/{id}/join) before it submits. */
  @ApiProperty()
  @Column({ type: 'boolean', default: false })
  joinRequired: boolean;

  @ApiProperty({ type: [RewardTier] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  rewards: RewardTier[];

  /**
   * Who enters a period. USER: one persona per user, the first of theirs to join or score (the others
   * are refused, 409 ALREADY_ENTERED), so that seats, attempts, ranks and prizes are each user's once.
   * PERSONA: each persona on its own.
   */
  @ApiProperty({ enum: ENTRANTS, enumName: 'LeaderboardEntrant' })
  @Column({ type: 'text', default: 'PERSONA' })
  @Filterable({ enum: ENTRANTS })
  entrant: Entrant;

  /** A player pushed out of this many first places is told (`leaderboard.rank_lost`); 0: nobody is. */
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 })
  @Column({ type: 'integer', default: 10 })
  rankLostTop: number;

  /** Closed periods kept readable; older ones are removed with their records. */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000 })
  @Column({ type: 'integer', default: 10 })
  keepPeriods: number;

  /** The admin who created the board: its prizes are awarded in their name. */
  @Column({ type: 'uuid' })
  @ForeignKey(() => User, { name: 'leaderboards_ownerUid_fkey', onDelete: 'RESTRICT' })
  @ApiHideProperty()
  @Secret()
  ownerUid: string;

  /** 64-bit bounds as clients read them: numbers where exact, strings beyond (pg answers bigint as text). */
  override toJSON(): object {
    return { ...super.toJSON(), minScore: int64Json(this.minScore), maxScore: int64Json(this.maxScore) };
  }
}
