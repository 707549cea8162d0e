import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable, Secret } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';

/** An achievement players can unlock: catalog data, written by admins. */
@Entity('achievements')
@Index('achievements_dateCreated_uid_idx', ['dateCreated', 'uid'])
export class AchievementDefinition extends RecordEntity {
  @ApiProperty({ example: 'Dragon slayer' })
  @Column({ type: 'text' })
  @Filterable()
  name: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Defeat the red dragon of the northern peaks.' })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  description: string | null;

  /** The badge shown for the achievement, in a form the game chooses: a media asset uid, a URL, a name. */
  @ApiProperty({ type: 'string', nullable: true, example: 'https://cdn.example.com/badges/dragon-slayer.png' })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  badge: string | null;

  /** The admin who created the definition. */
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => User, { name: 'achievements_ownerUid_fkey', onDelete: 'SET NULL' })
  @ApiHideProperty()
  @Secret()
  ownerUid: string | null;
}
