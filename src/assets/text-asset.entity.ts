import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable, Secret } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { LOCALIZED_TEXT_EXAMPLE } from './dto/localized-text.validator.js';

/** A text asset: one string in several languages, for game clients to show in the player's language. */
@Entity('text_assets')
@Index('text_assets_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Check('text_assets_text_check', `COALESCE(jsonb_typeof("text" -> 'default'), '') = 'string'`)
export class TextAsset extends RecordEntity {
  @ApiProperty({ example: 'Welcome banner' })
  @Column({ type: 'text' })
  @Filterable()
  name: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Shown on the title screen.' })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  description: string | null;

  @ApiProperty({
    type: 'object',
    description: 'The texts by language: `default` and BCP 47 language tags, as stored.',
    additionalProperties: { type: 'string' },
    example: LOCALIZED_TEXT_EXAMPLE,
  })
  @Column({ type: 'jsonb' })
  text: Record<string, string>;

  /** The admin who created the asset. */
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => User, { name: 'text_assets_ownerUid_fkey', onDelete: 'SET NULL' })
  @ApiHideProperty()
  @Secret()
  ownerUid: string | null;
}
