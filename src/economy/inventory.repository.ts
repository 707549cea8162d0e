import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../database/record.repository.js';
import { type Statement, statement } from '../database/statement.js';
import { holdingKey } from './inventory-plan.js';
import { InventoryItem } from './inventory-item.entity.js';
import type { InventorySnapshot } from './transaction.entity.js';

/** A persona's holding rows, by holdingKey(persona, item). */
export type HoldingRows = Map<string, InventoryItem>;

/** Personas locked for a transaction: each one's owner (a persona not found has none), and the item uids that name no item. */
export interface LockedInventories {
  owners: Map<string, string>;
  missingItems: string[];
}

/** Inventories: read by their owners, locked by the transaction processor, changed only as a transaction settles (TransactionsRepository.settle, with the ledger). */
@Injectable()
export class InventoryRepository extends RecordRepository<InventoryItem> {
  /** Prepared: every transaction runs one of them (docs/PERFORMANCE.md). */
  private readonly holdingsOfOneItem: Statement<PersonasAndItem>;
  private readonly holdingsOf: Statement<PersonasAndItems>;

  constructor(dataSource: DataSource) {
    super(dataSource, InventoryItem, 'inventory item');
    this.holdingsOfOneItem = statement(
      'holdings_of_one_item',
      (p) =>
        `SELECT ${this.returning} FROM inventory_items WHERE "personaUid" IN (${p.one}::uuid, ${p.two}::uuid) AND "itemUid" = ${p.item}::uuid`,
    );
    this.holdingsOf = statement(
      'holdings',
      (p) =>
        `SELECT ${this.returning} FROM inventory_items WHERE "personaUid" IN (${p.one}::uuid, ${p.two}::uuid) AND "itemUid" = ANY(${p.items}::uuid[])`,
    );
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
   * Answers each persona's owner (who is told of its inventory's changes) and which of `itemUids` name
   * no item, so that a transaction checks its references in the same round trip. The holdings are read
   * by a statement of their own, after this one: a statement's snapshot predates the lock waits it makes.
   */
  async lockInventories(transaction: Transaction, personaUids: string[], itemUids: string[] = []): Promise<LockedInventories> {
    const [one, two = null] = personaUids;
    const [row] =
      itemUids.length <= 1
        ? await this.run(transaction, LOCK_INVENTORIES_FOR_ONE_ITEM, { one, two, item: itemUids[0] ?? null })
        : await this.run(transaction, LOCK_INVENTORIES, { one, two, items: itemUids });
    return { owners: new Map(Object.entries(row.owners)), missingItems: row.missing };
  }

  /** The rows of these personas for these items (a persona that holds none of an item has no row). */
  async holdings(transaction: Transaction, personaUids: string[], itemUids: string[]): Promise<HoldingRows> {
    const [one, two = null] = personaUids;
    const rows = this.recordsOf(
      itemUids.length <= 1
        ? await this.run(transaction, this.holdingsOfOneItem, { one, two, item: itemUids[0] ?? null })
        : await this.run(transaction, this.holdingsOf, { one, two, items: itemUids }),
    );
    return new Map(rows.map((row) => [holdingKey(row.personaUid, row.itemUid), row]));
  }
}

/**
 * A transaction's one or two personas (`two` null for one), and its items. The personas are two scalar
 * parameters, and the commonest transaction, of one item, has a statement of its own with a scalar
 * item, because PostgreSQL's generic plan assumes ten elements for `= ANY($n)` and a hundred rows from
 * `unnest($n)`: with arrays it planned each run anew for its values (docs/PERFORMANCE.md).
 */
interface PersonasAndItem {
  one: string;
  two: string | null;
  item: string | null;
}
interface PersonasAndItems {
  one: string;
  two: string | null;
  items: string[];
}
type LockedRow = { owners: Record<string, string>; missing: string[] };

const LOCKED_PERSONAS = (p: { one: string; two: string }) =>
  `WITH locked AS (SELECT uid, "userUid" FROM personas WHERE uid IN (${p.one}::uuid, ${p.two}::uuid) ORDER BY uid FOR NO KEY UPDATE)
       SELECT (SELECT coalesce(json_object_agg(uid, "userUid"), '{}') FROM locked) AS owners`;

// Prepared, as the next: every transaction runs one of them.
const LOCK_INVENTORIES_FOR_ONE_ITEM = statement<PersonasAndItem, LockedRow>(
  'lock_inventories_for_one_item',
  (p) => `${LOCKED_PERSONAS(p)},
              ARRAY(SELECT ${p.item}::uuid WHERE ${p.item}::uuid IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM items WHERE uid = ${p.item}::uuid))::text[] AS missing`,
);

const LOCK_INVENTORIES = statement<PersonasAndItems, LockedRow>(
  'lock_inventories',
  (p) => `${LOCKED_PERSONAS(p)},
              ARRAY(SELECT wanted FROM unnest(${p.items}::uuid[]) AS wanted WHERE NOT EXISTS (SELECT 1 FROM items WHERE uid = wanted))::text[] AS missing`,
);

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
