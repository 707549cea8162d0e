import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, isoMilliseconds, RecordRepository, type Transaction } from '../database/record.repository.js';
import { type Placeholders, type Statement, statement } from '../database/statement.js';
import { EventOutbox, type WritingParameters, writingCtes, type WrittenEvents } from '../realtime/event-outbox.js';
import { holdingKey, type Holdings, type Movement, personasOf } from './inventory-plan.js';
import { type InventorySnapshot, InventoryTransaction, type TransactionStatus } from './transaction.entity.js';

const FINAL_STATUSES: readonly TransactionStatus[] = ['COMPLETED', 'DECLINED', 'CANCELED', 'FAILED'];

/** What a transaction's record holds before it is settled: stored PENDING, or not stored yet. */
export type UnsettledTransaction = Pick<
  InventoryTransaction,
  | 'uid'
  | 'type'
  | 'personaOneUid'
  | 'personaTwoUid'
  | 'personaOneInventoryItems'
  | 'personaTwoInventoryItems'
  | 'createdByUid'
  | 'idempotencyKey'
  | 'requestHash'
>;

/** How a transaction ends: COMPLETED with its movements, or FAILED (nothing moves) with its reason. */
export interface Settlement {
  status: 'COMPLETED' | 'FAILED';
  reason: string | null;
  movements: Movement[];
  /** The locked quantities the movements start from. */
  held: Holdings;
  /** Each persona's affected holdings before, in the record's order. */
  personaOneBefore: InventorySnapshot[];
  personaTwoBefore: InventorySnapshot[];
}

@Injectable()
export class TransactionsRepository extends RecordRepository<InventoryTransaction> {
  /** Prepared: most of its cost was PostgreSQL planning it (docs/PERFORMANCE.md). */
  private readonly settling: Statement<SettleParameters, Record<string, unknown> & WrittenEvents & { changedHoldings: number }>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, InventoryTransaction, 'transaction');
    this.settling = statement('settle', (p) => settleSql(p, this.returning, this.jsonOf('r')));
  }

  /** A transaction that reaches its end is pushed to the owners of both personas. */
  protected override async afterUpdate(transaction: Transaction, record: InventoryTransaction): Promise<void> {
    if (!FINAL_STATUSES.includes(record.status)) return;
    await this.outbox.record(transaction, 'transaction.updated', record, { ownersOf: personasOf(record) });
  }

  /**
   * Settles a transaction whose personas are locked, in one statement: the movements (relative, in SQL,
   * under the CHECK (quantity >= 0) that would stop an overdraft even if the caller's check were wrong),
   * each with its row in the append-only ledger, and the record, inserted or updated, with its status
   * and its snapshots (after: the rows the movements left, as the statement returns them). Inserting the
   * record here, rather than PENDING first, spares a processed-at-once transaction two round trips;
   * each data-modifying part touches its own rows, and the ledger's foreign key to the record is checked
   * at the statement's end. A holding that reaches 0 is removed (an inventory lists what a persona
   * holds), and only if it holds exactly what is taken; decrements are plain UPDATEs (an upsert would
   * test the CHECK on the negative row it proposes). Every movement must change exactly one row, or
   * nothing commits. The same statement tells each moved persona's owner (`inventory.updated`, its
   * changed holdings) and the owners of both personas (`transaction.updated`, the record as they read
   * it): only it knows their data, and writing them apart was a statement more (EventOutbox.writing).
   */
  async settle(transaction: Transaction, record: UnsettledTransaction, settlement: Settlement): Promise<InventoryTransaction> {
    const { movements, held } = settlement;
    const kind = ({ personaUid, itemUid, delta }: Movement) =>
      delta > 0 ? 'add' : (held.get(holdingKey(personaUid, itemUid)) ?? 0) + delta === 0 ? 'empty' : 'take';
    const rows = await this.run(transaction, this.settling, {
      personas: movements.map((movement) => movement.personaUid),
      items: movements.map((movement) => movement.itemUid),
      deltas: movements.map((movement) => movement.delta),
      kinds: movements.map(kind),
      uid: record.uid,
      type: record.type,
      status: settlement.status,
      personaOneUid: record.personaOneUid,
      personaTwoUid: record.personaTwoUid,
      personaOneItems: JSON.stringify(record.personaOneInventoryItems),
      personaTwoItems: JSON.stringify(record.personaTwoInventoryItems),
      createdByUid: record.createdByUid,
      idempotencyKey: record.idempotencyKey,
      requestHash: record.requestHash,
      reason: settlement.reason,
      personaOneBefore: JSON.stringify(settlement.personaOneBefore),
      personaTwoBefore: JSON.stringify(settlement.personaTwoBefore),
      ...this.outbox.writingValues(),
    });
    if (rows[0]?.changedHoldings !== movements.length) {
      throw new Error(`transaction ${record.uid} changed ${rows[0]?.changedHoldings} holdings for ${movements.length} movements`);
    }
    this.outbox.written(transaction, rows[0]);
    this.changed(transaction);
    return this.recordsOf(rows)[0];
  }

  /** A trade left PENDING for persona two: its owner is told there is an offer to answer. */
  async offer(transaction: Transaction, record: InventoryTransaction): Promise<InventoryTransaction> {
    await this.outbox.record(transaction, 'transaction.pending', record, { ownersOf: [record.personaTwoUid!] });
    return record;
  }

  /** Readable by the owners of persona one and persona two, and admins. */
  protected override scope(query: SelectQueryBuilder<InventoryTransaction>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(
      `(${column('personaOneUid')} IN (SELECT uid FROM personas WHERE "userUid" = :viewer)
        OR ${column('personaTwoUid')} IN (SELECT uid FROM personas WHERE "userUid" = :viewer))`,
      { viewer: caller?.uid ?? null },
    );
  }

  /** The transaction its creator made with this Idempotency-Key. */
  findByIdempotencyKey(transaction: Transaction, createdByUid: string, idempotencyKey: string): Promise<InventoryTransaction> {
    return transaction.findOneByOrFail(InventoryTransaction, { createdByUid, idempotencyKey });
  }
}

/** A holding row of the statement's own, as a snapshot (the same fields and date format as the REST answers). */
const snapshot = (row: string) =>
  `jsonb_build_object('uid', ${row}.uid, 'personaUid', ${row}."personaUid", 'itemUid', ${row}."itemUid", 'quantity', ${row}.quantity,
     'version', ${row}.version, 'dateCreated', ${isoMilliseconds(`${row}."dateCreated"`)}, 'dateModified', ${isoMilliseconds(`${row}."dateModified"`)})`;

/** A persona's snapshots after: each one before ($n), replaced by the row the statement left, if it changed one. */
const snapshotsAfter = (before: string) =>
  `(SELECT coalesce(jsonb_agg(coalesce(c.snapshot, b.value) ORDER BY b.n), '[]') FROM jsonb_array_elements(${before}::jsonb) WITH ORDINALITY AS b(value, n)
     LEFT JOIN changed c ON c.persona = (b.value ->> 'personaUid')::uuid AND c.item = (b.value ->> 'itemUid')::uuid)`;

/** What the settling statement takes: the movements (add, take or empty), the record, and its events' parameters. */
interface SettleParameters extends WritingParameters {
  personas: string[];
  items: string[];
  deltas: number[];
  kinds: Array<'add' | 'take' | 'empty'>;
  uid: string;
  type: string;
  status: string;
  personaOneUid: string;
  personaTwoUid: string | null;
  /** The record's item lists and snapshots before, as JSON text. */
  personaOneItems: string;
  personaTwoItems: string;
  createdByUid: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  reason: string | null;
  personaOneBefore: string;
  personaTwoBefore: string;
}

/**
 * See `settle`: the movements of the transaction, their ledger rows, its record and its events
 * (writingCtes); answers the record, how many holdings changed and the events written. A record
 * inserted here starts at version 1, as one stored PENDING and then settled does. The events, in the
 * order they were written apart: one `inventory.updated` per moved persona (its holdings in the order
 * of the movements), then `transaction.updated` to both personas.
 */
function settleSql(p: Placeholders<SettleParameters>, returned: string, recordJson: string): string {
  return `
  WITH moves AS (
    SELECT * FROM unnest(${p.personas}::uuid[], ${p.items}::uuid[], ${p.deltas}::int[], ${p.kinds}::text[]) WITH ORDINALITY AS m(persona, item, delta, kind, n)
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
    RETURNING i."personaUid", i."itemUid"
  ), ledger AS (
    INSERT INTO inventory_ledger ("transactionUid", "personaUid", "itemUid", delta) SELECT ${p.uid}, persona, item, delta FROM moves
  ), changed AS (
    SELECT a."personaUid" AS persona, a."itemUid" AS item, ${snapshot('a')} AS snapshot FROM added a
    UNION ALL SELECT t."personaUid", t."itemUid", ${snapshot('t')} FROM taken t
    UNION ALL SELECT e."personaUid", e."itemUid", jsonb_build_object('personaUid', e."personaUid", 'itemUid', e."itemUid", 'quantity', 0) FROM emptied e
  ), recorded AS (
    INSERT INTO transactions (uid, type, status, "personaOneUid", "personaTwoUid", "personaOneInventoryItems", "personaTwoInventoryItems",
                              "createdByUid", "idempotencyKey", "requestHash", reason, version,
                              "personaOneInventoryItemsBefore", "personaTwoInventoryItemsBefore",
                              "personaOneInventoryItemsAfter", "personaTwoInventoryItemsAfter")
    VALUES (${p.uid}, ${p.type}, ${p.status}, ${p.personaOneUid}, ${p.personaTwoUid}, ${p.personaOneItems}, ${p.personaTwoItems},
            ${p.createdByUid}, ${p.idempotencyKey}, ${p.requestHash}, ${p.reason}, 1, ${p.personaOneBefore}, ${p.personaTwoBefore},
            ${snapshotsAfter(p.personaOneBefore)}, ${snapshotsAfter(p.personaTwoBefore)})
    ON CONFLICT (uid) DO UPDATE SET status = EXCLUDED.status, reason = EXCLUDED.reason,
      "personaOneInventoryItemsBefore" = EXCLUDED."personaOneInventoryItemsBefore",
      "personaTwoInventoryItemsBefore" = EXCLUDED."personaTwoInventoryItemsBefore",
      "personaOneInventoryItemsAfter" = EXCLUDED."personaOneInventoryItemsAfter",
      "personaTwoInventoryItemsAfter" = EXCLUDED."personaTwoInventoryItemsAfter",
      version = transactions.version + 1, "dateModified" = now()
    RETURNING ${returned}
  ), moved AS (
    SELECT persona, (row_number() OVER (ORDER BY min(n)) - 1)::int AS idx FROM moves GROUP BY persona
  ), events AS (
    SELECT idx, 'inventory.updated' AS type, jsonb_build_object('personaUid', mp.persona, 'holdings',
             (SELECT jsonb_agg(c.snapshot ORDER BY m.n) FROM moves m JOIN changed c ON c.persona = m.persona AND c.item = m.item
              WHERE m.persona = mp.persona)) AS data
    FROM moved mp
    UNION ALL SELECT (SELECT count(*) FROM moved)::int, 'transaction.updated', ${recordJson} FROM recorded r
  ), wanted AS (
    SELECT idx, persona AS uid, true AS persona FROM moved
    UNION ALL SELECT (SELECT count(*) FROM moved)::int, persona, true FROM unnest(ARRAY[${p.personaOneUid}::uuid, ${p.personaTwoUid}::uuid]) AS persona WHERE persona IS NOT NULL
  )${writingCtes(p)}
  SELECT recorded.*, (SELECT count(*)::int FROM changed) AS "changedHoldings", written_events.counts, written_events.wake, written_events.recipients, written_events.notified
  FROM recorded LEFT JOIN written_events ON true`;
}
