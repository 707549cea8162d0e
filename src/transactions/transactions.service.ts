import { createHash } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type Repository, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, conflict, type ErrorDetail, ErrorCode, forbidden } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { ALIAS, column, RecordService } from '../common/record.service.js';
import { KeyedLock } from '../common/keyed-lock.js';
import { withRetry } from '../common/retry.js';
import { InventoryItem } from '../inventories/inventory-item.entity.js';
import { Item } from '../items/item.entity.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { PersonasService } from '../personas/personas.service.js';
import type { CreateTransactionDto } from './dto/create-transaction.dto.js';
import {
  affectedHoldings,
  applyMovements,
  findShortages,
  holdingKey,
  type Holdings,
  planMovements,
  TRANSACTION_TYPES,
  type TransactionRequest,
} from './inventory-plan.js';
import { LedgerEntry } from './ledger-entry.entity.js';
import { type InventorySnapshot, InventoryTransaction, TRANSACTION_STATUSES } from './transaction.entity.js';

export const TRANSACTION_FIELDS = {
  ...COMMON_FIELDS,
  status: { enum: TRANSACTION_STATUSES },
  type: { enum: TRANSACTION_TYPES },
  personaOneUid: 'uuid',
  personaTwoUid: 'uuid',
} as const satisfies QueryableFields;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Trades, awards and removals. Processing is one database transaction: both personas' rows are locked
 * in uid order (so two trades on the same pair wait for each other instead of deadlocking), every
 * quantity is checked before anything moves, and then everything moves, each movement written to the
 * append-only ledger. A short quantity moves nothing and leaves a FAILED record.
 */
@Injectable()
export class TransactionsService extends RecordService<InventoryTransaction> {
  protected readonly recordName = 'transaction';
  /** Same-persona transactions of this instance queue here rather than each holding a pooled connection. */
  private readonly personaQueue = new KeyedLock();

  constructor(
    @InjectRepository(InventoryTransaction) repository: Repository<InventoryTransaction>,
    private readonly dataSource: DataSource,
    private readonly personas: PersonasService,
    private readonly metrics: MetricsService,
  ) {
    super(repository);
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

  async create(body: CreateTransactionDto, caller: Caller, idempotencyKey: string | undefined): Promise<InventoryTransaction> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters', [
        { field: 'Idempotency-Key', message: 'malformed' },
      ]);
    }
    const request = normalise(body);
    await this.checkRequest(request, caller);
    const processAtOnce = caller.isAdmin || request.type !== 'TRADE' || request.personaTwoInventoryItems.length === 0;
    const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('base64url');

    // A transaction processed now queues behind this instance's others on the same personas first.
    const personas = processAtOnce ? [request.personaOneUid, request.personaTwoUid].filter((uid): uid is string => uid !== null) : [];
    const transaction = await this.personaQueue.run(personas, () =>
      withRetry(
        () =>
          this.dataSource.transaction(async (manager) => {
            const [inserted] = (
              await manager
                .createQueryBuilder()
                .insert()
                .into(InventoryTransaction)
                .values({ ...request, status: 'PENDING', createdByUid: caller.uid, idempotencyKey: idempotencyKey ?? null, requestHash })
                .orIgnore()
                .returning('*')
                .execute()
            ).raw as InventoryTransaction[];
            if (!inserted) {
              // A retry: the unique key made this insert wait for the first one to commit.
              const original = await manager.findOneByOrFail(InventoryTransaction, { createdByUid: caller.uid, idempotencyKey: idempotencyKey! });
              if (original.requestHash !== requestHash) {
                throw conflict(ErrorCode.IDEMPOTENCY_KEY_REUSED, 'this Idempotency-Key was used for a different request');
              }
              return original;
            }
            const created = this.repository.create(inserted);
            return processAtOnce ? this.process(manager, created) : created;
          }),
        () => this.metrics.countRetry('inventory_transaction'),
      ),
    );
    return failedAsError(transaction);
  }

  /** Persona two's owner (or an admin) accepts a PENDING trade: it is processed now. */
  accept(uid: string, caller: Caller): Promise<InventoryTransaction> {
    return withRetry(
      () =>
        this.dataSource.transaction(async (manager) => {
          const pending = await this.lockPending(manager, uid, caller);
          await this.assertOwner(pending.personaTwoUid!, caller, 'accept', manager);
          return this.process(manager, pending);
        }),
      () => this.metrics.countRetry('inventory_transaction'),
    ).then(failedAsError);
  }

  /** Persona two's owner (or an admin) declines a PENDING trade; nothing moves. */
  decline(uid: string, caller: Caller): Promise<InventoryTransaction> {
    return this.dataSource.transaction(async (manager) => {
      const pending = await this.lockPending(manager, uid, caller);
      await this.assertOwner(pending.personaTwoUid!, caller, 'decline', manager);
      return this.updateVersioned(uid, { status: 'DECLINED' }, undefined, manager);
    });
  }

  /** Persona one's owner (or an admin) cancels a PENDING trade; nothing moves. */
  cancel(uid: string, caller: Caller): Promise<InventoryTransaction> {
    return this.dataSource.transaction(async (manager) => {
      const pending = await this.lockPending(manager, uid, caller);
      await this.assertOwner(pending.personaOneUid, caller, 'cancel', manager);
      return this.updateVersioned(uid, { status: 'CANCELED' }, undefined, manager);
    });
  }

  /** Moves the quantities of `transaction`, or marks it FAILED; runs inside `manager`'s transaction. */
  private async process(manager: EntityManager, transaction: InventoryTransaction): Promise<InventoryTransaction> {
    const request = requestOf(transaction);
    const personaUids = [request.personaOneUid, request.personaTwoUid].filter((uid): uid is string => uid !== null);
    // The fixed lock order: two transactions on the same personas queue up instead of deadlocking.
    // NO KEY UPDATE, not UPDATE: this transaction's own rows (transaction, ledger, inventory) reference
    // the personas, and each such foreign key takes a KEY SHARE lock on them, which FOR UPDATE would
    // wait for. Two trades on one pair then deadlocked: each held KEY SHARE and waited for the other's.
    await manager.query('SELECT uid FROM personas WHERE uid = ANY($1::uuid[]) ORDER BY uid FOR NO KEY UPDATE', [
      personaUids,
    ]);

    const affected = affectedHoldings(request);
    const itemUids = [...new Set(affected.map((holding) => holding.itemUid))];
    const rowsBefore = await this.holdingRows(manager, personaUids, itemUids);
    const before: Holdings = new Map([...rowsBefore].map(([key, row]) => [key, row.quantity]));

    const shortages = findShortages(request, before);
    if (shortages.length > 0) {
      const snapshots = snapshotsOf(request, affected, rowsBefore, rowsBefore);
      const reason = shortages
        .map(({ personaUid, itemUid, needed, held }) => `persona ${personaUid} holds ${held} of item ${itemUid}, not ${needed}`)
        .join('; ');
      return this.updateVersioned(transaction.uid, { status: 'FAILED', reason, ...snapshots }, undefined, manager);
    }

    const movements = planMovements(request);
    // Each change is relative, in SQL, and the CHECK (quantity >= 0) would stop an overdraft even if the
    // check above were wrong. Decrements are plain UPDATEs: an upsert would test the CHECK on the
    // negative row it proposes to insert.
    for (const { personaUid, itemUid, delta } of movements) {
      if (delta > 0) {
        await manager.query(
          `INSERT INTO inventory_items ("personaUid", "itemUid", quantity) VALUES ($1, $2, $3)
           ON CONFLICT ("personaUid", "itemUid") DO UPDATE
             SET quantity = inventory_items.quantity + EXCLUDED.quantity,
                 version = inventory_items.version + 1, "dateModified" = now()`,
          [personaUid, itemUid, delta],
        );
      } else {
        await manager.query(
          `UPDATE inventory_items SET quantity = quantity + $3, version = version + 1, "dateModified" = now()
           WHERE "personaUid" = $1 AND "itemUid" = $2`,
          [personaUid, itemUid, delta],
        );
      }
    }
    // Rows that reach 0 are removed: an inventory lists what a persona holds.
    await manager.query(
      'DELETE FROM inventory_items WHERE "personaUid" = ANY($1::uuid[]) AND "itemUid" = ANY($2::uuid[]) AND quantity = 0',
      [personaUids, itemUids],
    );
    if (movements.length > 0) {
      await manager
        .createQueryBuilder()
        .insert()
        .into(LedgerEntry)
        .values(movements.map((movement) => ({ ...movement, transactionUid: transaction.uid })))
        .execute();
    }
    const rowsAfter = await this.holdingRows(manager, personaUids, itemUids);
    // With both personas locked nothing else can touch these rows; if they still disagree with the plan,
    // something is badly wrong: throwing rolls everything back rather than commit a doubtful state.
    const expected = applyMovements(before, movements);
    for (const { personaUid, itemUid } of affected) {
      const key = holdingKey(personaUid, itemUid);
      if ((rowsAfter.get(key)?.quantity ?? 0) !== (expected.get(key) ?? 0)) {
        throw new Error(`inventory ${key} disagrees with transaction ${transaction.uid}'s plan`);
      }
    }
    return this.updateVersioned(
      transaction.uid,
      { status: 'COMPLETED', reason: null, ...snapshotsOf(request, affected, rowsBefore, rowsAfter) },
      undefined,
      manager,
    );
  }

  private async holdingRows(manager: EntityManager, personaUids: string[], itemUids: string[]): Promise<Map<string, InventoryItem>> {
    const rows = (await manager.query(
      'SELECT * FROM inventory_items WHERE "personaUid" = ANY($1::uuid[]) AND "itemUid" = ANY($2::uuid[])',
      [personaUids, itemUids],
    )) as InventoryItem[];
    return new Map(rows.map((row) => [holdingKey(row.personaUid, row.itemUid), row]));
  }

  /** Structure, permissions and references; all before anything is written. */
  private async checkRequest(request: TransactionRequest, caller: Caller): Promise<void> {
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
    for (const [field, list] of [['personaOneInventoryItems', one], ['personaTwoInventoryItems', two]] as const) {
      if (new Set(list.map((entry) => entry.itemUid)).size !== list.length) errors.push({ field, message: 'names an item twice' });
    }
    if (errors.length > 0) throw badRequest(errors.map((error) => `${error.field} ${error.message}`).join('; '), errors);

    if (type !== 'TRADE' && !caller.isAdmin) throw forbidden(`only admins may make an ${type}`);
    const owners = await this.personas.owners([personaOneUid, ...(personaTwoUid ? [personaTwoUid] : [])]);
    for (const [field, uid] of [['personaOneUid', personaOneUid], ['personaTwoUid', personaTwoUid]] as const) {
      if (uid && !owners.has(uid)) throw badRequest(`${field} ${uid} does not name a persona`, [{ field, message: 'no such persona' }]);
    }
    if (!caller.isAdmin && owners.get(personaOneUid) !== caller.uid) {
      throw forbidden('a trade starts from one of your own personas (personaOneUid)');
    }
    const itemUids = [...new Set([...one, ...two].map((entry) => entry.itemUid))];
    const found = await this.dataSource
      .createQueryBuilder(Item, 'item')
      .select('item.uid', 'uid')
      .where('item.uid IN (:...itemUids)', { itemUids })
      .getRawMany<{ uid: string }>();
    const missing = itemUids.filter((uid) => !found.some((row) => row.uid === uid));
    if (missing.length > 0) {
      throw badRequest(`no such item: ${missing.join(', ')}`, missing.map((uid) => ({ field: 'itemUid', message: `no item ${uid}` })));
    }
  }

  private async lockPending(manager: EntityManager, uid: string, caller: Caller): Promise<InventoryTransaction> {
    const transaction = await this.lockOne(manager, uid, caller);
    if (transaction.status !== 'PENDING') {
      throw conflict(ErrorCode.CONFLICT, `transaction ${uid} is ${transaction.status}, no longer PENDING`);
    }
    return transaction;
  }

  private async assertOwner(personaUid: string, caller: Caller, action: string, manager: EntityManager): Promise<void> {
    if (caller.isAdmin) return;
    if ((await this.personas.owners([personaUid], manager)).get(personaUid) !== caller.uid) {
      throw forbidden(`only the owner of persona ${personaUid} may ${action} this trade`);
    }
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

function requestOf(transaction: InventoryTransaction): TransactionRequest {
  const { type, personaOneUid, personaTwoUid, personaOneInventoryItems, personaTwoInventoryItems } = transaction;
  return { type, personaOneUid, personaTwoUid, personaOneInventoryItems, personaTwoInventoryItems };
}

/** Every affected holding of each persona, before and after (quantity 0 where the persona holds none). */
function snapshotsOf(
  request: TransactionRequest,
  affected: Array<{ personaUid: string; itemUid: string }>,
  before: Map<string, InventoryItem>,
  after: Map<string, InventoryItem>,
) {
  const snapshot = (rows: Map<string, InventoryItem>, personaUid: string): InventorySnapshot[] =>
    affected
      .filter((holding) => holding.personaUid === personaUid)
      .map(({ itemUid }) => {
        const row = rows.get(holdingKey(personaUid, itemUid));
        return row
          ? { uid: row.uid, personaUid, itemUid, quantity: row.quantity, version: row.version, dateCreated: row.dateCreated, dateModified: row.dateModified }
          : { personaUid, itemUid, quantity: 0 };
      });
  const two = request.personaTwoUid;
  return {
    personaOneInventoryItemsBefore: snapshot(before, request.personaOneUid),
    personaOneInventoryItemsAfter: snapshot(after, request.personaOneUid),
    personaTwoInventoryItemsBefore: two ? snapshot(before, two) : [],
    personaTwoInventoryItemsAfter: two ? snapshot(after, two) : [],
  };
}

/** A FAILED transaction has been stored; the client is told with 409 and the record's uid. */
function failedAsError(transaction: InventoryTransaction): InventoryTransaction {
  if (transaction.status !== 'FAILED') return transaction;
  throw new ApiException(HttpStatus.CONFLICT, ErrorCode.INSUFFICIENT_QUANTITY, transaction.reason ?? 'a quantity is short', {
    transactionUid: transaction.uid,
  });
}
