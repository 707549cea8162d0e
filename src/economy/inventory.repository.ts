import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { holdingKey, type Movement } from './inventory-plan.js';
import { InventoryItem } from './inventory-item.entity.js';
import type { InventorySnapshot } from './transaction.entity.js';
import { EventOutbox } from '../realtime/event-outbox.js';

/** A persona's holding rows, by holdingKey(persona, item). */
export type HoldingRows = Map<string, InventoryItem>;

/** Personas locked for a transaction: each one's owner (a persona not found has none), and the item uids that name no item. */
export interface LockedInventories {
  owners: Map<string, string>;
  missingItems: string[];
}

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
   * Answers each persona's owner (who is told of its inventory's changes) and which of `itemUids` name
   * no item, so that a transaction checks its references in the same round trip. The holdings are read
   * by a statement of their own, after this one: a statement's snapshot predates the lock waits it makes.
   */
  async lockInventories(transaction: Transaction, personaUids: string[], itemUids: string[] = []): Promise<LockedInventories> {
    const [row] = await transaction.query<Array<{ owners: Record<string, string>; missing: string[] }>>(
      `WITH locked AS (SELECT uid, "userUid" FROM personas WHERE uid = ANY($1::uuid[]) ORDER BY uid FOR NO KEY UPDATE)
       SELECT (SELECT coalesce(json_object_agg(uid, "userUid"), '{}') FROM locked) AS owners,
              ARRAY(SELECT wanted FROM unnest($2::uuid[]) AS wanted WHERE NOT EXISTS (SELECT 1 FROM items WHERE uid = wanted))::text[] AS missing`,
      [personaUids, itemUids],
    );
    return { owners: new Map(Object.entries(row.owners)), missingItems: row.missing };
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
   * Applies the movements of a transaction to the locked holdings `before`, each with its row in the
   * append-only ledger, in one statement, so that no quantity ever moves without its ledger row; then
   * tells each persona's owner (`inventory.updated`, with the changed holdings). Each change is
   * relative, in SQL, and the CHECK (quantity >= 0) would stop an overdraft even if the caller's check
   * were wrong. A holding that reaches 0 is removed (an inventory lists what a persona holds), and only
   * if it holds exactly what is taken; decrements are plain UPDATEs (an upsert would test the CHECK on
   * the negative row it proposes to insert). Every movement must change exactly one row, or nothing
   * commits. Answers the holdings afterwards: `before`, with the rows the statement changed.
   */
  async applyMovements(
    transaction: Transaction,
    transactionUid: string,
    movements: Movement[],
    before: HoldingRows,
    owners: Map<string, string>,
  ): Promise<HoldingRows> {
    if (movements.length === 0) return before;
    const kind = ({ personaUid, itemUid, delta }: Movement) =>
      delta > 0 ? 'add' : (before.get(holdingKey(personaUid, itemUid))?.quantity ?? 0) + delta === 0 ? 'empty' : 'take';
    const changed = await transaction.query<Array<InventoryItem & { change: 'set' | 'removed' }>>(APPLY_MOVEMENTS, [
      movements.map((movement) => movement.personaUid),
      movements.map((movement) => movement.itemUid),
      movements.map((movement) => movement.delta),
      movements.map(kind),
      transactionUid,
    ]);
    if (changed.length !== movements.length) {
      throw new Error(`transaction ${transactionUid} changed ${changed.length} holdings for ${movements.length} movements`);
    }
    const after: HoldingRows = new Map(before);
    for (const { change, ...row } of changed) {
      if (change === 'removed') after.delete(holdingKey(row.personaUid, row.itemUid));
      else after.set(holdingKey(row.personaUid, row.itemUid), row as InventoryItem);
    }
    const personas = [...new Set(movements.map((movement) => movement.personaUid))];
    await this.outbox.recordMany(
      transaction,
      'inventory.updated',
      personas.map((personaUid) => ({
        data: {
          personaUid,
          holdings: movements
            .filter((movement) => movement.personaUid === personaUid)
            .map(({ itemUid }) => holdingSnapshot(after, personaUid, itemUid)),
        },
        users: owners.has(personaUid) ? [owners.get(personaUid)!] : [],
      })),
    );
    return after;
  }
}

/**
 * The movements ($1 personas, $2 items, $3 deltas, $4 kinds: add, take or empty) of transaction $5 and
 * their ledger rows, in one statement. Each data-modifying part touches its own rows; every row it
 * changed comes back, marked `set` or `removed`.
 */
const APPLY_MOVEMENTS = `
  WITH moves AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[]) AS m(persona, item, delta, kind)
  ), added AS (
    INSERT INTO inventory_items ("personaUid", "itemUid", quantity)
    SELECT persona, item, delta FROM moves WHERE kind = 'add'
    ON CONFLICT ("personaUid", "itemUid") DO UPDATE
      SET quantity = inventory_items.quantity + EXCLUDED.quantity, version = inventory_items.version + 1, "dateModified" = now()
    RETURNING *
  ), taken AS (
    UPDATE inventory_items i SET quantity = i.quantity + m.delta, version = i.version + 1, "dateModified" = now()
    FROM moves m WHERE m.kind = 'take' AND i."personaUid" = m.persona AND i."itemUid" = m.item
    RETURNING i.*
  ), emptied AS (
    DELETE FROM inventory_items i USING moves m
    WHERE m.kind = 'empty' AND i."personaUid" = m.persona AND i."itemUid" = m.item AND i.quantity = -m.delta
    RETURNING i.*
  ), ledger AS (
    INSERT INTO inventory_ledger ("transactionUid", "personaUid", "itemUid", delta) SELECT $5, persona, item, delta FROM moves
  )
  SELECT 'set' AS change, added.* FROM added
  UNION ALL SELECT 'set', taken.* FROM taken
  UNION ALL SELECT 'removed', emptied.* FROM emptied`;

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
