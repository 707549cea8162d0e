import { ApiProperty } from '@nestjs/swagger';
import { ItemQuantityEntry } from '../../economy/transaction.entity.js';
import { type Int64Json } from '../rules/scores.js';
import { PAYOUT_STATUSES, type PayoutStatus } from '../leaderboard-payouts.repository.js';
import { PERIOD_STATUSES, type PeriodStatus } from '../leaderboard-period.entity.js';
import { Int64Property } from './int64.validators.js';

/** A persona's record in one period, as clients read it: with its rank among the visible records. */
export class LeaderboardRecordView {
  @ApiProperty({ format: 'uuid' })
  uid: string;

  @ApiProperty({ format: 'uuid' })
  leaderboardUid: string;

  @ApiProperty({ format: 'uuid' })
  periodUid: string;

  @ApiProperty({ format: 'uuid' })
  personaUid: string;

  @ApiProperty({ example: 'Aria' })
  personaName: string;

  /** 1 for the first; null while the persona has joined but not scored. Equal scores rank by who reached them first. */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1 })
  rank: number | null;

  /** How many records are ranked in the period (on a page: at the page's moment). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  rankCount: number;

  @Int64Property({ nullable: true })
  score: Int64Json | null;

  @Int64Property({ nullable: true })
  subscore: Int64Json | null;

  /** Submissions made in the period. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  numScore: number;

  /** The board's limit of submissions per period (null: none). */
  @ApiProperty({ type: 'integer', nullable: true })
  maxNumScore: number | null;

  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true })
  metadata: Record<string, unknown> | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;

  /** When the record last changed (a submission). */
  @ApiProperty({ type: 'string', format: 'date-time' })
  dateModified: Date;

  @ApiProperty({ type: 'integer', minimum: 0 })
  version: number;
}

/** `leaderboard.record_updated`: your persona's record changed (a submission, yours or a game server's). */
export class LeaderboardRecordChange {
  @ApiProperty({ format: 'uuid' })
  leaderboardUid: string;
  @ApiProperty({ format: 'uuid' })
  periodUid: string;
  @ApiProperty({ format: 'uuid' })
  personaUid: string;
  @Int64Property()
  score: Int64Json;
  @Int64Property()
  subscore: Int64Json;
  @ApiProperty({ type: 'integer', minimum: 1 })
  numScore: number;
  /** The rank at the write, as the instance that took it saw the board (null: hidden, the user is banned). */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1 })
  rank: number | null;
  @ApiProperty({ type: 'integer', minimum: 0 })
  rankCount: number;
}

/** `leaderboard.rank_lost`: another persona's score pushed yours out of the board's first `rankLostTop` places. */
export class LeaderboardRankLost {
  @ApiProperty({ format: 'uuid' })
  leaderboardUid: string;
  @ApiProperty({ format: 'uuid' })
  periodUid: string;
  /** Your persona. */
  @ApiProperty({ format: 'uuid' })
  personaUid: string;
  /** Its rank now (rankLostTop + 1). */
  @ApiProperty({ type: 'integer', minimum: 2 })
  rank: number;
  /** Whose score passed it. */
  @ApiProperty({ format: 'uuid' })
  byPersonaUid: string;
}

/** `leaderboard.period_ended`: a period your persona took part in closed; its rank is final, its prize (if any) on its way. */
export class LeaderboardPeriodEnded {
  @ApiProperty({ format: 'uuid' })
  leaderboardUid: string;
  @ApiProperty({ format: 'uuid' })
  periodUid: string;
  @ApiProperty({ type: 'string', format: 'date-time' })
  startsAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  endsAt: string | null;
  @ApiProperty({ format: 'uuid' })
  personaUid: string;
  /** Final rank (null: joined without a score). */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1 })
  rank: number | null;
  @Int64Property({ nullable: true })
  score: Int64Json | null;
  @Int64Property({ nullable: true })
  subscore: Int64Json | null;
  @ApiProperty({ type: 'integer', minimum: 0 })
  rankCount: number;
  /** The prize awarded for the rank (an AWARD transaction follows, with `inventory.updated`), or null. */
  @ApiProperty({ type: [ItemQuantityEntry], nullable: true })
  rewards: ItemQuantityEntry[] | null;
}

/** A persona's record in a board's current period, with the board's name (GET /personas/{personaUid}/leaderboard-records). */
export class PersonaLeaderboardRecordView extends LeaderboardRecordView {
  @ApiProperty({ example: 'Weekly high scores' })
  leaderboardName: string;

  /** CLOSED once the board has ended: its last period, with final ranks. */
  @ApiProperty({ enum: PERIOD_STATUSES, enumName: 'PeriodStatus' })
  periodStatus: PeriodStatus;
}

/** A prize of a closed period: to whom, for which rank, what, and whether it is paid (GET /leaderboards/{id}/periods/{periodId}/payouts). */
export class LeaderboardPayoutView {
  @ApiProperty({ format: 'uuid' })
  uid: string;

  @ApiProperty({ format: 'uuid' })
  personaUid: string;

  @ApiProperty({ example: 'Aria' })
  personaName: string;

  /** The final rank that earned it. */
  @ApiProperty({ type: 'integer', minimum: 1 })
  rank: number;

  /** What the reward tier of that rank gives. */
  @ApiProperty({ type: [ItemQuantityEntry] })
  items: ItemQuantityEntry[];

  /** PENDING until the worker's AWARD commits (PAID); FAILED once the economy refused it or after 10 attempts. */
  @ApiProperty({ enum: PAYOUT_STATUSES, enumName: 'PayoutStatus' })
  status: PayoutStatus;

  /** The AWARD transaction that paid it (GET /transactions/{id}; the persona's ledger shows it). */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  transactionUid: string | null;

  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts: number;

  /** Why the last attempt failed. */
  @ApiProperty({ type: 'string', nullable: true })
  error: string | null;

  /** When the period's close wrote it. */
  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  datePaid: Date | null;
}
