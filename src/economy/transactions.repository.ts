import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { InventoryTransaction } from './transaction.entity.js';

@Injectable()
export class TransactionsRepository extends RecordRepository<InventoryTransaction> {
  constructor(dataSource: DataSource) {
    super(dataSource, InventoryTransaction, 'transaction');
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
