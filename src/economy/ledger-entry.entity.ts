import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { Item } from '../items/item.entity.js';
import { Persona } from '../personas/persona.entity.js';
import { InventoryTransaction } from './transaction.entity.js';

/**
 * One moved quantity of one completed transaction. Append-only (a trigger refuses UPDATE, DELETE and
 * TRUNCATE), so that the history of every item can be audited: per item, the sum of all inventory
 * quantities equals the sum of the AWARD and REMOVAL deltas.
 */
@Entity('inventory_ledger')
@Index('inventory_ledger_itemUid_idx', ['itemUid'])
@Index('inventory_ledger_transactionUid_idx', ['transactionUid'])
@Index('inventory_ledger_personaUid_idx', ['personaUid', 'sequence'])
@Check('inventory_ledger_delta_check', '"delta" <> 0')
export class LedgerEntry {
  /** Order of entry (bigint, read as a string). */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  sequence: string;

  @Column({ type: 'uuid' })
  @ForeignKey(() => InventoryTransaction, { name: 'inventory_ledger_transactionUid_fkey', onDelete: 'RESTRICT' })
  transactionUid: string;

  @Column({ type: 'uuid' })
  @ForeignKey(() => Persona, { name: 'inventory_ledger_personaUid_fkey', onDelete: 'RESTRICT' })
  personaUid: string;

  @Column({ type: 'uuid' })
  @ForeignKey(() => Item, { name: 'inventory_ledger_itemUid_fkey', onDelete: 'RESTRICT' })
  itemUid: string;

  @Column({ type: 'integer' })
  delta: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  dateCreated: Date;
}
