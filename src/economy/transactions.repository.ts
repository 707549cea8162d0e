import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import { InventoryTransaction, type TransactionStatus } from './transaction.entity.js';

const FINAL_STATUSES: readonly TransactionStatus[] = ['COMPLETED', 'DECLINED', 'CANCELED', 'FAILED'];

@Injectable()
export class TransactionsRepository extends RecordRepository<InventoryTransaction> {
  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, InventoryTransaction, 'transaction');
  }

  /** A transaction that reaches its end is pushed to the owners of both personas. */
  protected override async afterUpdate(transaction: Transaction, record: InventoryTransaction): Promise<void> {
    if (!FINAL_STATUSES.includes(record.status)) return;
    await this.outbox.record(transaction, 'transaction.updated', record, { ownersOf: personasOf(record) });
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

const personasOf = (record: InventoryTransaction) => [record.personaOneUid, ...(record.personaTwoUid ? [record.personaTwoUid] : [])];
