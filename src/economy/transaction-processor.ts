import { Injectable } from '@nestjs/common';
import type { Transaction } from '../common/record.repository.js';
import { holdingSnapshot, type HoldingRows, InventoryRepository, type LockedInventories } from './inventory.repository.js';
import {
  affectedHoldings,
  applyMovements,
  findShortages,
  type Holding,
  holdingKey,
  type Holdings,
  itemsOf,
  personasOf,
  planMovements,
  type TransactionRequest,
} from './inventory-plan.js';
import type { InventorySnapshot, InventoryTransaction } from './transaction.entity.js';
import { TransactionsRepository } from './transactions.repository.js';

/**
 * Processes one transaction inside a database transaction: the personas' inventories are locked (in a
 * fixed order), every quantity is checked before anything moves, then everything moves, each movement
 * with its ledger row, and the record keeps snapshots of the affected holdings before and after. A
 * short quantity moves nothing and leaves the record FAILED with its reason. Who may ask for what is
 * decided before (TransactionsService); this is the arithmetic and the bookkeeping.
 */
@Injectable()
export class TransactionProcessor {
  constructor(
    private readonly inventories: InventoryRepository,
    private readonly transactions: TransactionsRepository,
  ) {}

  /**
   * Locks the inventories of the request's personas (in uid order), answering their owners and the
   * items that do not exist: what `process` needs first, and what the caller may check before it.
   */
  lock(db: Transaction, request: TransactionRequest): Promise<LockedInventories> {
    return this.inventories.lockInventories(db, personasOf(request), itemsOf(request));
  }

  /** Processes the transaction; `locked`: its inventories, if the caller has locked them already (`lock`). */
  async process(db: Transaction, transaction: InventoryTransaction, locked?: LockedInventories): Promise<InventoryTransaction> {
    const request = requestOf(transaction);
    const personaUids = personasOf(request);
    const { owners } = locked ?? (await this.inventories.lockInventories(db, personaUids));

    const affected = affectedHoldings(request);
    const rowsBefore = await this.inventories.holdings(db, personaUids, itemsOf(request));
    const before: Holdings = new Map([...rowsBefore].map(([key, row]) => [key, row.quantity]));

    const shortages = findShortages(request, before);
    if (shortages.length > 0) {
      const reason = shortages
        .map(({ personaUid, itemUid, needed, held }) => `persona ${personaUid} holds ${held} of item ${itemUid}, not ${needed}`)
        .join('; ');
      const snapshots = snapshotsOf(request, affected, rowsBefore, rowsBefore);
      return this.transactions.updateVersioned(transaction.uid, { status: 'FAILED', reason, ...snapshots }, undefined, db);
    }

    const movements = planMovements(request);
    const rowsAfter = await this.inventories.applyMovements(db, transaction.uid, movements, rowsBefore, owners);
    // With both personas locked nothing else can touch these rows; if they still disagree with the plan,
    // something is badly wrong: throwing rolls everything back rather than commit a doubtful state.
    const expected = applyMovements(before, movements);
    for (const { personaUid, itemUid } of affected) {
      const key = holdingKey(personaUid, itemUid);
      if ((rowsAfter.get(key)?.quantity ?? 0) !== (expected.get(key) ?? 0)) {
        throw new Error(`inventory ${key} disagrees with transaction ${transaction.uid}'s plan`);
      }
    }
    const snapshots = snapshotsOf(request, affected, rowsBefore, rowsAfter);
    return this.transactions.updateVersioned(transaction.uid, { status: 'COMPLETED', reason: null, ...snapshots }, undefined, db);
  }
}

function requestOf(transaction: InventoryTransaction): TransactionRequest {
  const { type, personaOneUid, personaTwoUid, personaOneInventoryItems, personaTwoInventoryItems } = transaction;
  return { type, personaOneUid, personaTwoUid, personaOneInventoryItems, personaTwoInventoryItems };
}

/** Every affected holding of each persona, before and after (quantity 0 where the persona holds none). */
function snapshotsOf(request: TransactionRequest, affected: Holding[], before: HoldingRows, after: HoldingRows) {
  const snapshot = (rows: HoldingRows, personaUid: string): InventorySnapshot[] =>
    affected.filter((holding) => holding.personaUid === personaUid).map(({ itemUid }) => holdingSnapshot(rows, personaUid, itemUid));
  const two = request.personaTwoUid;
  return {
    personaOneInventoryItemsBefore: snapshot(before, request.personaOneUid),
    personaOneInventoryItemsAfter: snapshot(after, request.personaOneUid),
    personaTwoInventoryItemsBefore: two ? snapshot(before, two) : [],
    personaTwoInventoryItemsAfter: two ? snapshot(after, two) : [],
  };
}
