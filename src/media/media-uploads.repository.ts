import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../database/record.repository.js';
import { transact } from '../database/after-commit.js';
import { MediaUpload } from './media-blob.entity.js';

/** Direct uploads in progress (presigned URLs handed out and not yet completed). */
@Injectable()
export class MediaUploadsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    return transact(this.dataSource, work);
  }

  async insert(upload: Omit<MediaUpload, 'uid' | 'dateCreated'>): Promise<MediaUpload> {
    const result = await this.dataSource.createQueryBuilder().insert().into(MediaUpload).values(upload).returning('*').execute();
    return this.dataSource.getRepository(MediaUpload).create((result.raw as MediaUpload[])[0]);
  }

  /** The upload of this asset's variant; null when unknown. */
  find(uid: string, assetUid: string, variant: string): Promise<MediaUpload | null> {
    return this.dataSource
      .createQueryBuilder(MediaUpload, 'upload')
      .where('"upload"."uid" = :uid AND "upload"."assetUid" = :assetUid AND "upload"."variant" = :variant', { uid, assetUid, variant })
      .getOne();
  }

  async remove(transaction: Transaction, uid: string): Promise<void> {
    await transaction.createQueryBuilder().delete().from(MediaUpload).where('uid = :uid', { uid }).execute();
  }

  /** One expired upload, locked (one nobody else is completing or sweeping), or null. */
  claimExpired(transaction: Transaction): Promise<MediaUpload | null> {
    return transaction
      .createQueryBuilder(MediaUpload, 'upload')
      .where('"upload"."expiresAt" < now()')
      .orderBy('"upload"."expiresAt"', 'ASC')
      .limit(1)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getOne();
  }
}
