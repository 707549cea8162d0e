import type { Transaction } from '../database/record.repository.js';
import type { StoredMediaFiles } from './media-files.js';

/** A record whose variants name files of the store. */
export interface MediaFileHolder {
  files: StoredMediaFiles;
}

/**
 * The records uploads attach files to: the media assets, whose module binds MediaAssetsRepository to
 * this class. Declared on media's side so that the uploads live beside the store they write to while
 * media/ imports nothing of assets/ (assets → media is the one direction).
 */
export abstract class MediaFileHolders<T extends MediaFileHolder = MediaFileHolder> {
  abstract findOne(uid: string, caller: undefined): Promise<T>;
  abstract lockOne(transaction: Transaction, uid: string, caller: undefined): Promise<T>;
  abstract transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R>;
  /** The database's clock in this transaction, as the record's own dates will read it. */
  abstract transactionTime(transaction: Transaction): Promise<string>;
  abstract updateVersioned(
    uid: string,
    patch: { files: StoredMediaFiles },
    expectedVersion: number | undefined,
    transaction: Transaction,
  ): Promise<T>;
}
