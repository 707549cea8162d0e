import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable, Secret } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { Persona } from '../personas/persona.entity.js';
import { StorageAck } from '../storage/dto/storage-answers.dto.js';
import { MAX_QUANTITY, TRANSACTION_TYPES, type TransactionType } from './inventory-plan.js';

export const TRANSACTION_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELED', 'DECLINED'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export class ItemQuantityEntry {
  @ApiProperty({ format: 'uuid' })
  itemUid: string;

  @ApiProperty({ type: 'integer', example: 2, minimum: 1 })
  quantity: number;
}

/**
 * A persona's holding of an item at one moment. `uid`, dates and `version` are those of the inventory
 * row, absent when the persona held none (then `quantity` is 0).
 */
export class InventorySnapshot {
  @ApiProperty({ format: 'uuid', required: false })
  uid?: string;

  @ApiProperty({ format: 'uuid' })
  personaUid: string;

  @ApiProperty({ format: 'uuid' })
  itemUid: string;

  @ApiProperty({ type: 'integer', example: 3, minimum: 0, maximum: MAX_QUANTITY })
  quantity: number;

  @ApiProperty({ type: 'integer', required: false, minimum: 0 })
  version?: number;

  @ApiProperty({ type: 'string', format: 'date-time', required: false })
  dateCreated?: Date;

  @ApiProperty({ type: 'string', format: 'date-time', required: false })
  dateModified?: Date;
}

/** A change of inventories: a trade between two personas, or an admin's award or removal. */
@Entity('transactions')
@Unique('transactions_idempotency_key', ['createdByUid', 'idempotencyKey'])
@Index('transactions_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Index('transactions_personaOneUid_idx', ['personaOneUid'])
@Index('transactions_personaTwoUid_idx', ['personaTwoUid'])
@Check('transactions_type_check', `"type" IN ('TRADE', 'AWARD', 'REMOVAL')`)
@Check('transactions_status_check', `"status" IN ('PENDING', 'COMPLETED', 'FAILED', 'CANCELED', 'DECLINED')`)
export class InventoryTransaction extends RecordEntity {
  /** PENDING (waiting for persona two's owner), COMPLETED, FAILED (a quantity was short), CANCELED or DECLINED. */
  @ApiProperty({ enum: TRANSACTION_STATUSES, enumName: 'TransactionStatus' })
  @Column({ type: 'text' })
  @Filterable({ enum: TRANSACTION_STATUSES })
  status: TransactionStatus;

  @ApiProperty({ enum: TRANSACTION_TYPES, enumName: 'TransactionType' })
  @Column({ type: 'text' })
  @Filterable({ enum: TRANSACTION_TYPES })
  type: TransactionType;

  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => Persona, { name: 'transactions_personaOneUid_fkey', onDelete: 'RESTRICT' })
  @Filterable()
  personaOneUid: string;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => Persona, { name: 'transactions_personaTwoUid_fkey', onDelete: 'RESTRICT' })
  @Filterable()
  personaTwoUid: string | null;

  /** What persona one gives (TRADE), receives (AWARD) or loses (REMOVAL). */
  @ApiProperty({ type: [ItemQuantityEntry] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  personaOneInventoryItems: ItemQuantityEntry[];

  /** What persona two gives in a TRADE. */
  @ApiProperty({ type: [ItemQuantityEntry] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  personaTwoInventoryItems: ItemQuantityEntry[];

  @ApiProperty({ type: [InventorySnapshot] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  personaOneInventoryItemsBefore: InventorySnapshot[];

  @ApiProperty({ type: [InventorySnapshot] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  personaOneInventoryItemsAfter: InventorySnapshot[];

  @ApiProperty({ type: [InventorySnapshot] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  personaTwoInventoryItemsBefore: InventorySnapshot[];

  @ApiProperty({ type: [InventorySnapshot] })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  personaTwoInventoryItemsAfter: InventorySnapshot[];

  /** Why a FAILED transaction failed. */
  @ApiProperty({ type: 'string', nullable: true })
  @Column({ type: 'text', nullable: true })
  reason: string | null;

  /** Who made the transaction. */
  @Column({ type: 'uuid' })
  @ForeignKey(() => User, { name: 'transactions_createdByUid_fkey', onDelete: 'RESTRICT' })
  @ApiHideProperty()
  @Secret()
  createdByUid: string;

  @Column({ type: 'text', nullable: true })
  @ApiHideProperty()
  @Secret()
  idempotencyKey: string | null;

  /** Hash of the request, to tell a retry from a different request reusing an Idempotency-Key. */
  @Column({ type: 'text', nullable: true })
  @ApiHideProperty()
  @Secret()
  requestHash: string | null;
  /**
   * Not stored: in the answer to a POST /inventories/transaction that carried `storageWrites`, the
   * objects' new versions (a retry answered from its Idempotency-Key has none: read the objects).
   */
  @ApiProperty({ type: [StorageAck], required: false })
  storageAcks?: StorageAck[];
}
