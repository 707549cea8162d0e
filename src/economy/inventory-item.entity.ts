import { ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { Item } from '../items/item.entity.js';
import { MAX_QUANTITY } from './inventory-plan.js';
import { Persona } from '../personas/persona.entity.js';

/** How many of an item a persona holds. Changed only by transactions; a row that reaches 0 is removed. */
@Entity('inventory_items')
@Unique('inventory_items_persona_item_key', ['personaUid', 'itemUid'])
@Index('inventory_items_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Index('inventory_items_itemUid_idx', ['itemUid'])
@Check('inventory_items_quantity_check', '"quantity" >= 0')
export class InventoryItem extends RecordEntity {
  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => Persona, { name: 'inventory_items_personaUid_fkey', onDelete: 'CASCADE' })
  @Filterable()
  personaUid: string;

  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => Item, { name: 'inventory_items_itemUid_fkey', onDelete: 'RESTRICT' })
  @Filterable()
  itemUid: string;

  /** At most 2,147,483,647 (the column is an integer): a transaction that would go past it is refused. */
  @ApiProperty({ example: 3, minimum: 0, maximum: MAX_QUANTITY })
  @Column({ type: 'integer' })
  @Filterable()
  quantity: number;
}
