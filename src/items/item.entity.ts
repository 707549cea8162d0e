import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable, Secret } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';

export type StatValue = string | number | boolean;

export class Stat {
  /** The statistic's name, e.g. `damage`. */
  @ApiProperty({ example: 'damage' })
  name: string;

  /** A string, number or boolean. */
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], example: 12 })
  value: StatValue;
}

/** A catalog item: what personas hold in their inventories and trade. */
@Entity('items')
@Index('items_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Index('items_parentUID_idx', ['parentUID'])
@Check('items_cost_check', '"cost" >= 0')
export class Item extends RecordEntity {
  @ApiProperty({ example: 'Iron sword' })
  @Column({ type: 'text' })
  @Filterable()
  name: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'A plain but trusty blade.' })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  description: string | null;

  /** The price, in the game's currency (>= 0). */
  @ApiProperty({ example: 150 })
  @Column({ type: 'double precision', default: 0 })
  @Filterable()
  cost: number;

  @ApiProperty({ type: [Stat] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  stats: Stat[];

  /** A free-form reference to the item's asset. */
  @ApiProperty({ type: 'string', nullable: true })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  assetId: string | null;

  /** The uid of the media asset used as the item's icon. */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  @Column({ type: 'uuid', nullable: true })
  @Filterable()
  iconAssetId: string | null;

  /** The item this one derives from; must exist, and may not make a cycle. */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => Item, { name: 'items_parentUID_fkey', onDelete: 'RESTRICT' })
  @Filterable()
  parentUID: string | null;

  /** The admin who created the item. */
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => User, { name: 'items_ownerUid_fkey', onDelete: 'SET NULL' })
  @ApiHideProperty()
  @Secret()
  ownerUid: string | null;
}
