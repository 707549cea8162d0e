import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository, type Transaction } from '../database/record.repository.js';
import { MediaAsset } from './media-asset.entity.js';
import { Replicas } from '../database/replicas.js';
import { runStatement, statement } from '../database/statement.js';
import type { MediaFileHolders } from '../media/media-file-holders.js';

const TRANSACTION_TIME = statement<Record<string, never>, { now: Date }>('transaction_time', () => 'SELECT now()::timestamptz(3) AS now');

@Injectable()
export class MediaAssetsRepository extends RecordRepository<MediaAsset> implements MediaFileHolders<MediaAsset> {
  constructor(dataSource: DataSource, replicas: Replicas) {
    super(dataSource, MediaAsset, 'media asset', replicas);
  }

  /**
   * The database's clock, as the record's own dates will read it: `now()` is fixed for a transaction,
   * and the columns keep milliseconds. File dates then equal the asset's dates of the same write.
   */
  async transactionTime(transaction: Transaction): Promise<string> {
    const [{ now }] = await runStatement(transaction, TRANSACTION_TIME, {});
    return now.toISOString();
  }
}
