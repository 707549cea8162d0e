import { Injectable } from '@nestjs/common';
import type { Transaction } from '../common/record.repository.js';
import { holdingSnapshot, type HoldingRows, InventoryRepository, type LockedInventories } from './inventory.repository.js';
import {
  affectedHoldings,
  applyMovements,
  findShortages,
  holdingKey,
  type Holdings,
  itemsOf,
  personasOf,
  planMovements,
  type TransactionRequest,
} from './inventory-plan.js';
import type { InventorySnapshot, InventoryTransaction } from './transaction.entity.js';
import { TransactionsRepository, type UnsettledTransaction } from './transactions.repository.js';

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

  /**
   * Processes the transaction, stored PENDING or not stored yet (then its record is stored settled);
   * `locked`: its inventories, if the caller has locked them already (`lock`).
   */
  async process(db: Transaction, transaction: UnsettledTransaction, locked?: LockedInventories): Promise<InventoryTransaction> {
    const request = requestOf(transaction);
    const personaUids = personasOf(request);
    if (!locked) await this.inventories.lockInventories(db, personaUids);

    const rowsBefore = await this.inventories.holdings(db, personaUids, itemsOf(request));
    const held: Holdings = new Map([...rowsBefore].map(([key, row]) => [key, row.quantity]));
    const snapshots = snapshotsBefore(request, rowsBefore);

    const shortages = findShortages(request, held);
    if (shortages.length > 0) {
      const reason = shortages
        .map(({ personaUid, itemUid, needed, held }) => `persona ${personaUid} holds ${held} of item ${itemUid}, not ${needed}`)
        .join('; ');
      return this.transactions.settle(db, transaction, { status: 'FAILED', reason, movements: [], held, ...snapshots });
    }

    const movements = planMovements(request);
    const settled = await this.transactions.settle(db, transaction, { status: 'COMPLETED', reason: null, movements, held, ...snapshots });
    // With both personas locked nothing else can touch these rows; if they still disagree with the plan,
    // something is badly wrong: throwing rolls everything back rather than commit a doubtful state.
    const expected = applyMovements(held, movements);
    for (const { personaUid, itemUid, quantity } of [...settled.personaOneInventoryItemsAfter, ...settled.personaTwoInventoryItemsAfter]) {
      if (quantity !== (expected.get(holdingKey(personaUid, itemUid)) ?? 0)) {
        throw new Error(`inventory ${holdingKey(personaUid, itemUid)} disagrees with transaction ${transaction.uid}'s plan`);
      }
    }
    return settled;
  }
}

function requestOf(transaction: UnsettledTransaction): TransactionRequest {
  const { type, personaOneUid, personaTwoUid, personaOneInventoryItems, personaTwoInventoryItems } = transaction;
  return { type, personaOneUid, personaTwoUid, personaOneInventoryItems, personaTwoInventoryItems };
}

/** Every affected holding of each persona before (quantity 0 where the persona holds none); settle() derives the after. */
function snapshotsBefore(request: TransactionRequest, before: HoldingRows) {
  const affected = affectedHoldings(request);
  const snapshot = (personaUid: string): InventorySnapshot[] =>
    affected.filter((holding) => holding.personaUid === personaUid).map(({ itemUid }) => holdingSnapshot(before, personaUid, itemUid));
  const two = request.personaTwoUid;
  return { personaOneBefore: snapshot(request.personaOneUid), personaTwoBefore: two ? snapshot(two) : [] };
}
