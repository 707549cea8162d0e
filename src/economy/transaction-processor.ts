import { Injectable } from '@nestjs/common';
import { badRequest } from '../common/errors.js';
import type { Transaction } from '../database/record.repository.js';
import { holdingSnapshot, type HoldingRows, InventoryRepository, type LockedInventories } from './inventory.repository.js';
import {
  affectedHoldings,
  applyMovements,
  findOverflows,
  findShortages,
  holdingKey,
  type Holdings,
  itemsOf,
  MAX_QUANTITY,
  type Overflow,
  personasOf,
  planMovements,
  type TransactionRequest,
} from './inventory-plan.js';
import { type StorageBatch, StorageService } from '../storage/storage.service.js';
import type { InventorySnapshot, InventoryTransaction } from './transaction.entity.js';
import { TransactionsRepository, type UnsettledTransaction } from './transactions.repository.js';

/**
 * Processes one transaction inside a database transaction: the personas' inventories are locked (in a
 * fixed order), every quantity is checked before anything moves, then everything moves, each movement
 * with its ledger row, and the record keeps snapshots of the affected holdings before and after. A
 * short quantity moves nothing and leaves the record FAILED with its reason; a holding that would pass
 * MAX_QUANTITY is refused with 400 before that, and leaves no record. Who may ask for what is
 * decided before (TransactionsService); this is the arithmetic and the bookkeeping.
 */
@Injectable()
export class TransactionProcessor {
  constructor(
    private readonly inventories: InventoryRepository,
    private readonly transactions: TransactionsRepository,
    private readonly storage: StorageService,
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
   * `locked`: its inventories, if the caller has locked them already (`lock`); `storage`: objects to
   * write with it, only if it completes (a refused write, a version conflict say, rolls back both).
   */
  async process(
    db: Transaction,
    transaction: UnsettledTransaction,
    locked?: LockedInventories,
    storage?: StorageBatch,
  ): Promise<InventoryTransaction> {
    const request = requestOf(transaction);
    const personaUids = personasOf(request);
    if (!locked) await this.inventories.lockInventories(db, personaUids);

    const rowsBefore = await this.inventories.holdings(db, personaUids, itemsOf(request));
    const held: Holdings = new Map([...rowsBefore].map(([key, row]) => [key, row.quantity]));
    const snapshots = snapshotsBefore(request, rowsBefore);

    // A holding past its column's range is bad input, like an unknown item: 400, and nothing is stored,
    // not even FAILED (a trade being accepted stays PENDING), so that the request can be sent again.
    const overflows = findOverflows(request, held);
    if (overflows.length > 0) throw quantityOutOfRange(overflows);

    const shortages = findShortages(request, held);
    if (shortages.length > 0) {
      const reason = shortages
        .map(({ personaUid, itemUid, needed, held }) => `persona ${personaUid} holds ${held} of item ${itemUid}, not ${needed}`)
        .join('; ');
      return this.transactions.settle(db, transaction, { status: 'FAILED', reason, movements: [], held, ...snapshots });
    }

    // After the personas' locks, as every economy transaction takes them: the owners' storage is locked second.
    const storageAcks = storage ? await this.storage.applyWrites(db, storage) : undefined;
    const movements = planMovements(request);
    const settled = await this.transactions.settle(db, transaction, { status: 'COMPLETED', reason: null, movements, held, ...snapshots });
    if (storageAcks) settled.storageAcks = storageAcks;
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

function quantityOutOfRange(overflows: Overflow[]) {
  const errors = overflows.map(({ personaUid, itemUid, field, after }) => ({
    field,
    message: `would leave persona ${personaUid} holding ${after} of item ${itemUid}, more than the ${MAX_QUANTITY} a holding keeps`,
  }));
  return badRequest(errors.map(({ field, message }) => `${field} ${message}`).join('; '), errors);
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
