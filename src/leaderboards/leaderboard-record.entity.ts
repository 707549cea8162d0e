import { Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { RecordEntity } from '../common/record.entity.js';
import { Persona } from '../personas/persona.entity.js';
import { LeaderboardPeriod } from './leaderboard-period.entity.js';

/**
 * A persona's record in one period of a board, as stored. Clients read it as a LeaderboardRecordView
 * (dto/leaderboard-record.dto.ts), with its rank. `score` and `subscore` are null while the persona has
 * joined but not scored; `rankKey` is null while it is not ranked (no score, or its user is banned:
 * `hidden`); `rank` is set once the period has closed.
 */
@Entity('leaderboard_records')
@Unique('leaderboard_records_period_persona_key', ['periodUid', 'personaUid'])
@Index('leaderboard_records_rankKey_idx', ['periodUid', 'rankKey'], { where: `"rankKey" IS NOT NULL` })
@Index('leaderboard_records_rank_idx', ['periodUid', 'rank'], { where: `"rank" IS NOT NULL` })
@Index('leaderboard_records_userUid_idx', ['userUid'])
@Index('leaderboard_records_personaUid_idx', ['personaUid'])
@Index('leaderboard_records_hidden_idx', ['userUid'], { where: `"hidden"` })
@Index('leaderboard_records_period_user_key', ['periodUid', 'userUid'], { unique: true, where: `"perUser"` })
export class LeaderboardRecord extends RecordEntity {
  @Column({ type: 'uuid' })
  leaderboardUid: string;

  @Column({ type: 'uuid' })
  @ForeignKey(() => LeaderboardPeriod, { name: 'leaderboard_records_periodUid_fkey', onDelete: 'CASCADE' })
  periodUid: string;

  @Column({ type: 'uuid' })
  @ForeignKey(() => Persona, { name: 'leaderboard_records_personaUid_fkey', onDelete: 'CASCADE' })
  personaUid: string;

  @Column({ type: 'uuid' })
  userUid: string;

  /** bigint, as pg answers it: text. */
  @Column({ type: 'bigint', nullable: true })
  score: string | null;

  @Column({ type: 'bigint', nullable: true })
  subscore: string | null;

  @Column({ type: 'integer', default: 0 })
  numScore: number;

  @Column({ type: 'jsonb', nullable: true })
  metadata: Record<string, unknown> | null;

  @Column({ type: 'bigint', nullable: true })
  reached: string | null;

  @Column({ type: 'text', nullable: true, collation: 'C' })
  rankKey: string | null;

  @Column({ type: 'boolean', default: false })
  hidden: boolean;

  @Column({ type: 'integer', nullable: true })
  rank: number | null;

  /** Its user's one entry in the period (a board whose entrant is USER): unique per period and user. */
  @Column({ type: 'boolean', default: false })
  perUser: boolean;
}
