import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/user.entity.js';
import { RecordEntity } from '../common/record.entity.js';

/** An achievement players can unlock: catalog data, written by admins. */
@Entity('achievements')
@Index('achievements_dateCreated_uid_idx', ['dateCreated', 'uid'])
export class AchievementDefinition extends RecordEntity {
  @ApiProperty({ example: 'Dragon slayer' })
  @Column({ type: 'text' })
  name: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Defeat the red dragon of the northern peaks.' })
  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** The badge shown for the achievement, in a form the game chooses: a media asset uid, a URL, a name. */
  @ApiProperty({ type: 'string', nullable: true, example: 'https://cdn.example.com/badges/dragon-slayer.png' })
  @Column({ type: 'text', nullable: true })
  badge: string | null;

  /** The admin who created the definition; internal, never returned. */
  @ApiHideProperty()
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => User, { name: 'achievements_ownerUid_fkey', onDelete: 'SET NULL' })
  ownerUid: string | null;

  toJSON(): Omit<AchievementDefinition, 'ownerUid' | 'toJSON'> {
    const { ownerUid: _ownerUid, ...visible } = this;
    return visible;
  }
}
