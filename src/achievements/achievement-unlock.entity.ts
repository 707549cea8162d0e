import { ApiProperty } from '@nestjs/swagger';
import { Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { AchievementDefinition } from './achievement.entity.js';

/**
 * A user's unlock of an achievement. The unique key makes "once per user" a rule of the database, so
 * that concurrent unlocks cannot make a duplicate; deleting the achievement or the user removes it.
 */
@Entity('achievement_unlocks')
@Unique('achievement_unlocks_achievementUid_userUid_key', ['achievementUid', 'userUid'])
@Index('achievement_unlocks_userUid_idx', ['userUid', 'dateCreated', 'uid'])
export class AchievementUnlock extends RecordEntity {
  /** The achievement unlocked. */
  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => AchievementDefinition, { name: 'achievement_unlocks_achievementUid_fkey', onDelete: 'CASCADE' })
  @Filterable()
  achievementUid: string;

  /** The user who unlocked it. */
  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => User, { name: 'achievement_unlocks_userUid_fkey', onDelete: 'CASCADE' })
  @Filterable()
  userUid: string;
}
