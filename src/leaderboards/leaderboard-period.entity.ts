import { ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { Leaderboard } from './leaderboard.entity.js';

export const PERIOD_STATUSES = ['OPEN', 'CLOSED'] as const;
export type PeriodStatus = (typeof PERIOD_STATUSES)[number];

/**
 * One period of a board: made when its first record (or join) is written. OPEN while it takes scores
 * and its ranks move; CLOSED once it has ended: its ranks are final (stored on its records) and its
 * prizes are being, or have been, paid.
 */
@Entity('leaderboard_periods')
@Unique('leaderboard_periods_board_start_key', ['leaderboardUid', 'startsAt'])
@Index('leaderboard_periods_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Index('leaderboard_periods_open_idx', ['endsAt'], { where: `"status" = 'OPEN'` })
@Check('leaderboard_periods_status_check', `"status" IN ('OPEN', 'CLOSED')`)
export class LeaderboardPeriod extends RecordEntity {
  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => Leaderboard, { name: 'leaderboard_periods_leaderboardUid_fkey', onDelete: 'CASCADE' })
  @Filterable()
  leaderboardUid: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  @Column({ type: 'timestamptz', precision: 3 })
  @Filterable()
  startsAt: Date;

  /** When it closes (null: never). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  @Filterable()
  endsAt: Date | null;

  @ApiProperty({ enum: PERIOD_STATUSES, enumName: 'PeriodStatus' })
  @Column({ type: 'text', default: 'OPEN' })
  @Filterable({ enum: PERIOD_STATUSES })
  status: PeriodStatus;

  /** Personas that joined or scored (counted where the board has a maxSize). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  @Column({ type: 'integer', default: 0 })
  size: number;

  /** Once CLOSED: how many records were ranked. */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0 })
  @Column({ type: 'integer', nullable: true })
  rankCount: number | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  closedAt: Date | null;
}
