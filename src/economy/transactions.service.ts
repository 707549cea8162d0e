import { createHash, randomUUID } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, conflict, type ErrorDetail, ErrorCode } from '../common/errors.js';
import { KeyedLock } from '../common/keyed-lock.js';
import { RecordService } from '../database/record.service.js';
import type { Transaction } from '../database/record.repository.js';
import { withRetry } from '../common/retry.js';
import { ItemsRepository } from '../items/items.repository.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { PersonasRepository } from '../personas/personas.repository.js';
import { type StorageBatch, StorageService } from '../storage/storage.service.js';
import type { CreateTransactionDto } from './dto/create-transaction.dto.js';
import { isProcessedAtOnce, requireMayAnswer, requireMayMake, requireMayOfferFrom } from './economy.policy.js';
import { itemsOf, personasOf, type TransactionRequest } from './inventory-plan.js';
import type { LockedInventories } from './inventory.repository.js';
import type { InventoryTransaction } from './transaction.entity.js';
import { TransactionProcessor } from './transaction-processor.js';
import { TransactionsRepository } from './transactions.repository.js';

/** What an Idempotency-Key may be: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Trades, awards and removals as clients ask for them: the request checked (shape, permissions,
 * references), made once per Idempotency-Key, queued behind this instance's other transactions on the
 * same personas, and retried on serialization failures. TransactionProcessor moves the quantities.
 */
@Injectable()
export class TransactionsService extends RecordService<InventoryTransaction> {
  /** Same-persona transactions of this instance queue here rather than each holding a pooled connection. */
  private readonly personaQueue = new KeyedLock();

  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly processor: TransactionProcessor,
    private readonly personas: PersonasRepository,
    private readonly items: ItemsRepository,
    private readonly metrics: MetricsService,
    private readonly storage: StorageService,
  ) {
    super(transactions);
  }

  /**
   * `within`: work of the caller's to do in the same database transaction once the transaction is
   * stored (or found by its Idempotency-Key), such as marking a leaderboard prize paid: both commit or
   * neither does.
   */
  async create(
    body: CreateTransactionDto,
    caller: Caller,
    idempotencyKey: string | undefined,
    within?: (db: Transaction, transaction: InventoryTransaction) => Promise<void>,
  ): Promise<InventoryTransaction> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters', [{ field: 'Idempotency-Key', message: 'malformed' }]);
    }
    const request = normalise(body);
    checkShape(request, caller);
    const atOnce = isProcessedAtOnce(caller, request.type, request.personaTwoInventoryItems.length);
    const storage = this.storageWritesOf(body, caller, atOnce);
    // A transaction processed now checks its references where it locks its personas (one round trip).
    if (!atOnce) {
      const [owners, missingItems] = await Promise.all([this.personas.owners(personasOf(request)), this.items.missing(itemsOf(request))]);
      checkReferences(request, caller, { owners, missingItems });
    }
    // Storage writes count in the hash only when sent: a retry's hash is what it was before they existed.
    const hashed = storage ? { ...request, storageWrites: body.storageWrites } : request;
    const requestHash = createHash('sha256').update(JSON.stringify(hashed)).digest('base64url');

    // A transaction processed now queues behind this instance's others on the same personas first.
    const personas = atOnce ? personasOf(request) : [];
    const transaction = await this.personaQueue.run(personas, () =>
      this.retrying(async (db) => {
        const made = await this.createOnce(db, request, caller, idempotencyKey, requestHash, atOnce, storage);
        await within?.(db, made);
        return made;
      }),
    );
    return failedAsError(transaction);
  }

  /** Persona two's owner (or an admin) accepts a PENDING trade: it is processed now. */
  async accept(uid: string, caller: Caller): Promise<InventoryTransaction> {
    const transaction = await this.retrying(async (db) => {
      const pending = await this.lockPending(db, uid, caller);
      await this.requireMayAnswer(db, caller, pending.personaTwoUid!, 'accept');
      return this.processor.process(db, pending);
    });
    return failedAsError(transaction);
  }

  /** Persona two's owner (or an admin) declines a PENDING trade; nothing moves. */
  decline(uid: string, caller: Caller): Promise<InventoryTransaction> {
    return this.transactions.transaction(async (db) => {
      const pending = await this.lockPending(db, uid, caller);
      await this.requireMayAnswer(db, caller, pending.personaTwoUid!, 'decline');
      return this.transactions.updateVersioned(uid, { status: 'DECLINED' }, undefined, db);
    });
  }

  /** Persona one's owner (or an admin) cancels a PENDING trade; nothing moves. */
  cancel(uid: string, caller: Caller): Promise<InventoryTransaction> {
    return this.transactions.transaction(async (db) => {
      const pending = await this.lockPending(db, uid, caller);
      await this.requireMayAnswer(db, caller, pending.personaOneUid, 'cancel');
      return this.transactions.updateVersioned(uid, { status: 'CANCELED' }, undefined, db);
    });
  }

  /** Stores the transaction (or finds the one this Idempotency-Key made) and processes it when due now. */
  private async createOnce(
    db: Transaction,
    request: TransactionRequest,
    caller: Caller,
    idempotencyKey: string | undefined,
    requestHash: string,
    atOnce: boolean,
    storage: StorageBatch | undefined,
  ): Promise<InventoryTransaction> {
    const locked = atOnce ? await this.processor.lock(db, request) : undefined;
    if (locked) checkReferences(request, caller, locked);
    if (locked && idempotencyKey === undefined) {
      // Nothing for a retry to find: the record is stored once, settled (no PENDING row to update after).
      const unstored = { ...request, uid: randomUUID(), createdByUid: caller.uid, idempotencyKey: null, requestHash };
      return this.processor.process(db, unstored, locked, storage);
    }
    const created = await this.transactions.insertUnlessConflict(
      { ...request, status: 'PENDING', createdByUid: caller.uid, idempotencyKey: idempotencyKey ?? null, requestHash },
      db,
    );
    if (!created) {
      // A retry: the unique key made this insert wait for the first one to commit.
      const original = await this.transactions.findByIdempotencyKey(db, caller.uid, idempotencyKey!);
      if (original.requestHash !== requestHash) {
        throw conflict(ErrorCode.IDEMPOTENCY_KEY_REUSED, 'this Idempotency-Key was used for a different request');
      }
      return original;
    }
    return locked ? this.processor.process(db, created, locked, storage) : this.transactions.offer(db, created);
  }

  /**
   * The storage writes a transaction carries, checked as a storage batch is, or none. Only with a
   * transaction processed at once: one that waits for persona two would have to hold them, unapplied,
   * for days, and its versions would be stale by then.
   */
  private storageWritesOf(body: CreateTransactionDto, caller: Caller, atOnce: boolean): StorageBatch | undefined {
    if (!body.storageWrites?.length) return undefined;
    if (!atOnce) {
      throw badRequest("storageWrites travel only with a transaction processed at once (a gift, or an admin's transaction)", [
        { field: 'storageWrites', message: 'not with a trade that waits for persona two' },
      ]);
    }
    return this.storage.prepareWrites(caller, body.storageWrites, 'storageWrites');
  }

  /** One database transaction, run again on serialization failures and deadlocks (counted in /metrics). */
  private retrying(work: (db: Transaction) => Promise<InventoryTransaction>): Promise<InventoryTransaction> {
    return withRetry(
      () => this.transactions.transaction(work),
      () => this.metrics.countRetry('inventory_transaction'),
    );
  }

  private async lockPending(db: Transaction, uid: string, caller: Caller): Promise<InventoryTransaction> {
    const transaction = await this.transactions.lockOne(db, uid, caller);
    if (transaction.status !== 'PENDING') {
      throw conflict(ErrorCode.CONFLICT, `transaction ${uid} is ${transaction.status}, no longer PENDING`);
    }
    return transaction;
  }

  private async requireMayAnswer(
    db: Transaction,
    caller: Caller,
    personaUid: string,
    action: 'accept' | 'decline' | 'cancel',
  ): Promise<void> {
    if (caller.isAdmin) return;
    requireMayAnswer(caller, personaUid, (await this.personas.owners([personaUid], db)).get(personaUid), action);
  }
}

function normalise(body: CreateTransactionDto): TransactionRequest {
  const list = (entries: CreateTransactionDto['personaOneInventoryItems']) =>
    (entries ?? []).map(({ itemUid, quantity }) => ({ itemUid: itemUid.toLowerCase(), quantity }));
  return {
    type: body.type ?? 'TRADE',
    personaOneUid: body.personaOneUid.toLowerCase(),
    personaTwoUid: body.personaTwoUid?.toLowerCase() ?? null,
    personaOneInventoryItems: list(body.personaOneInventoryItems),
    personaTwoInventoryItems: list(body.personaTwoInventoryItems),
  };
}

/** A FAILED transaction has been stored; the client is told with 409 and the record's uid. */
function failedAsError(transaction: InventoryTransaction): InventoryTransaction {
  if (transaction.status !== 'FAILED') return transaction;
  throw new ApiException(HttpStatus.CONFLICT, ErrorCode.INSUFFICIENT_QUANTITY, transaction.reason ?? 'a quantity is short', {
    transactionUid: transaction.uid,
  });
}

/** The request's structure, and whether the caller may make its type at all; before anything is read. */
function checkShape(request: TransactionRequest, caller: Caller): void {
  const errors: ErrorDetail[] = [];
  const { type, personaOneUid, personaTwoUid, personaOneInventoryItems: one, personaTwoInventoryItems: two } = request;
  if (type === 'TRADE') {
    if (!personaTwoUid) errors.push({ field: 'personaTwoUid', message: 'is required for a TRADE' });
    else if (personaTwoUid === personaOneUid) errors.push({ field: 'personaTwoUid', message: 'must differ from personaOneUid' });
    if (one.length + two.length === 0) errors.push({ field: 'personaOneInventoryItems', message: 'a trade must move something' });
  } else {
    if (personaTwoUid) errors.push({ field: 'personaTwoUid', message: `has no place in an ${type}` });
    if (two.length > 0) errors.push({ field: 'personaTwoInventoryItems', message: `has no place in an ${type}` });
    if (one.length === 0) errors.push({ field: 'personaOneInventoryItems', message: `an ${type} must name items` });
  }
  for (const [field, list] of [
    ['personaOneInventoryItems', one],
    ['personaTwoInventoryItems', two],
  ] as const) {
    if (new Set(list.map((entry) => entry.itemUid)).size !== list.length) errors.push({ field, message: 'names an item twice' });
  }
  if (errors.length > 0) throw badRequest(errors.map((error) => `${error.field} ${error.message}`).join('; '), errors);
  requireMayMake(caller, type);
}

/** The personas and items exist, and the caller may give from persona one; all before anything is written. */
function checkReferences(request: TransactionRequest, caller: Caller, { owners, missingItems }: LockedInventories): void {
  const { personaOneUid, personaTwoUid } = request;
  for (const [field, uid] of [
    ['personaOneUid', personaOneUid],
    ['personaTwoUid', personaTwoUid],
  ] as const) {
    if (uid && !owners.has(uid)) throw badRequest(`${field} ${uid} does not name a persona`, [{ field, message: 'no such persona' }]);
  }
  requireMayOfferFrom(caller, owners.get(personaOneUid));
  if (missingItems.length > 0) {
    throw badRequest(
      `no such item: ${missingItems.join(', ')}`,
      missingItems.map((uid) => ({ field: 'itemUid', message: `no item ${uid}` })),
    );
  }
}
