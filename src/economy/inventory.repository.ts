import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { holdingKey, type Movement } from './inventory-plan.js';
import { InventoryItem } from './inventory-item.entity.js';
import { LedgerEntry } from './ledger-entry.entity.js';
import type { InventorySnapshot } from './transaction.entity.js';
import { EventOutbox } from '../realtime/event-outbox.js';

/** A persona's holding rows, by holdingKey(persona, item). */
export type HoldingRows = Map<string, InventoryItem>;

/** Inventories: read by their owners, changed only by the transaction processor, always with the ledger. */
@Injectable()
export class InventoryRepository extends RecordRepository<InventoryItem> {
  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, InventoryItem, 'inventory item');
  }

  /** A persona's inventory is its owner's (and the admins'). */
  protected override scope(query: SelectQueryBuilder<InventoryItem>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(`${column('personaUid')} IN (SELECT uid FROM personas WHERE "userUid" = :viewer)`, {
      viewer: caller?.uid ?? null,
    });
  }

  /**
   * Locks the personas' inventories until the transaction ends, in the fixed order of their uids: two
   * transactions on the same personas queue up instead of deadlocking. The persona rows stand for their
   * inventories. NO KEY UPDATE, not UPDATE: the transaction's own rows (transaction, ledger, inventory)
   * reference the personas, and each such foreign key takes a KEY SHARE lock on them, which FOR UPDATE
   * would wait for; two trades on one pair then deadlocked, each holding KEY SHARE and waiting for the other.
   */
  async lockInventories(transaction: Transaction, personaUids: string[]): Promise<void> {
    await transaction.query('SELECT uid FROM personas WHERE uid = ANY($1::uuid[]) ORDER BY uid FOR NO KEY UPDATE', [personaUids]);
  }

  /** The rows of these personas for these items (a persona that holds none of an item has no row). */
  async holdings(transaction: Transaction, personaUids: string[], itemUids: string[]): Promise<HoldingRows> {
    const rows = await transaction.query<InventoryItem[]>(
      'SELECT * FROM inventory_items WHERE "personaUid" = ANY($1::uuid[]) AND "itemUid" = ANY($2::uuid[])',
      [personaUids, itemUids],
    );
    return new Map(rows.map((row) => [holdingKey(row.personaUid, row.itemUid), row]));
  }

  /**
   * Applies the movements of a transaction and writes each to the append-only ledger, in one place so
   * that no quantity ever moves without its ledger row, nor without its owner being told
   * (`inventory.updated`, per persona, with the changed holdings). Each change is relative, in SQL, and
   * the CHECK (quantity >= 0) would stop an overdraft even if the caller's check were wrong. Decrements
   * are plain UPDATEs: an upsert would test the CHECK on the negative row it proposes to insert. Rows
   * that reach 0 are removed: an inventory lists what a persona holds. Answers the holdings of
   * `personaUids` in `itemUids` afterwards.
   */
  async applyMovements(
    transaction: Transaction,
    transactionUid: string,
    movements: Movement[],
    personaUids: string[],
    itemUids: string[],
  ): Promise<HoldingRows> {
    for (const { personaUid, itemUid, delta } of movements) {
      if (delta > 0) {
        await transaction.query(
          `INSERT INTO inventory_items ("personaUid", "itemUid", quantity) VALUES ($1, $2, $3)
           ON CONFLICT ("personaUid", "itemUid") DO UPDATE
             SET quantity = inventory_items.quantity + EXCLUDED.quantity,
                 version = inventory_items.version + 1, "dateModified" = now()`,
          [personaUid, itemUid, delta],
        );
      } else {
        await transaction.query(
          `UPDATE inventory_items SET quantity = quantity + $3, version = version + 1, "dateModified" = now()
           WHERE "personaUid" = $1 AND "itemUid" = $2`,
          [personaUid, itemUid, delta],
        );
      }
    }
    if (movements.length === 0) return this.holdings(transaction, personaUids, itemUids);
    await transaction.query(
      'DELETE FROM inventory_items WHERE "personaUid" = ANY($1::uuid[]) AND "itemUid" = ANY($2::uuid[]) AND quantity = 0',
      [[...new Set(movements.map((movement) => movement.personaUid))], [...new Set(movements.map((movement) => movement.itemUid))]],
    );
    await transaction
      .createQueryBuilder()
      .insert()
      .into(LedgerEntry)
      .values(movements.map((movement) => ({ ...movement, transactionUid })))
      .execute();
    const after = await this.holdings(transaction, personaUids, itemUids);
    for (const personaUid of new Set(movements.map((movement) => movement.personaUid))) {
      const holdings = movements
        .filter((movement) => movement.personaUid === personaUid)
        .map(({ itemUid }) => holdingSnapshot(after, personaUid, itemUid));
      await this.outbox.record(transaction, 'inventory.updated', { personaUid, holdings }, { ownersOf: [personaUid] });
    }
    return after;
  }
}

/** A persona's holding of an item as a snapshot: the row's fields, or quantity 0 where it holds none. */
export function holdingSnapshot(rows: HoldingRows, personaUid: string, itemUid: string): InventorySnapshot {
  const row = rows.get(holdingKey(personaUid, itemUid));
  return row
    ? {
        uid: row.uid,
        personaUid,
        itemUid,
        quantity: row.quantity,
        version: row.version,
        dateCreated: row.dateCreated,
        dateModified: row.dateModified,
      }
    : { personaUid, itemUid, quantity: 0 };
}
