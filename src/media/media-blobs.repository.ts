import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../database/record.repository.js';
import { transact } from '../database/after-commit.js';
import { runStatement, statement } from '../database/statement.js';
import { MediaBlob, MediaBlobReference } from './media-blob.entity.js';

/**
 * A digest's lock, for the length of a transaction: whoever holds it decides whether the digest's blob
 * exists (an upload keeping it, the sweep deleting it). The key is a 64-bit hash of the digest: two
 * digests sharing one only wait for each other.
 */
const LOCK_DIGEST = statement<{ sha256: string }>(
  'media_lock_digest',
  (p) => `SELECT pg_advisory_xact_lock(hashtextextended('media:' || ${p.sha256}, 0))`,
);
const TRY_LOCK_DIGEST = statement<{ sha256: string }, { locked: boolean }>(
  'media_try_lock_digest',
  (p) => `SELECT pg_try_advisory_xact_lock(hashtextextended('media:' || ${p.sha256}, 0)) AS locked`,
);

const TOTALS = statement<Record<string, never>, { files: string; bytes: string }>(
  'media_totals',
  () => `SELECT count(*)::bigint AS files, coalesce(sum("size"), 0)::bigint AS bytes FROM "media_blobs"`,
);

/**
 * Whether a variant refers to the blob with this type: the type it was uploaded as, which its asset's
 * `files` holds (a variant whose type changes stops being a stored file and drops its reference).
 */
const SERVED_AS = statement<{ sha256: string; mimetype: string }, { served: boolean }>(
  'media_served_as',
  (p) =>
    `SELECT EXISTS (SELECT 1 FROM "media_blob_references" "reference" JOIN "media_assets" "asset" ON "asset"."uid" = "reference"."assetUid" ` +
    `WHERE "reference"."sha256" = ${p.sha256} AND "asset"."files" -> "reference"."variant" ->> 'mimetype' = ${p.mimetype}) AS served`,
);

const UNREFERENCED = `NOT EXISTS (SELECT 1 FROM "media_blob_references" "reference" WHERE "reference"."sha256" = "blob"."sha256")`;

const FORGET_UNREFERENCED = statement<{ sha256: string }, { sha256: string }>(
  'media_forget_unreferenced',
  (p) => `DELETE FROM "media_blobs" "blob" WHERE "blob"."sha256" = ${p.sha256} AND ${UNREFERENCED} RETURNING "blob"."sha256"`,
);

/**
 * The blobs the media store keeps and the variants that refer to them: the bookkeeping that lets
 * identical bytes be stored once, and a blob be deleted only when no variant refers to it, even while
 * an upload of the same bytes races the sweep (the digest's lock).
 */
@Injectable()
export class MediaBlobsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    return transact(this.dataSource, work);
  }

  /** The files the store keeps, and their bytes: one row per distinct file, uploaded by admins. */
  async totals(): Promise<{ objects: number; bytes: number }> {
    const [row] = await runStatement(this.dataSource, TOTALS, {});
    return { objects: Number(row.files), bytes: Number(row.bytes) };
  }

  /** Waits for the digest's lock, held until the transaction ends. */
  async lockDigest(transaction: Transaction, sha256: string): Promise<void> {
    await runStatement(transaction, LOCK_DIGEST, { sha256 });
  }

  /** Takes the digest's lock if nobody holds it: the sweep passes over a digest being uploaded. */
  async tryLockDigest(transaction: Transaction, sha256: string): Promise<boolean> {
    const [{ locked }] = await runStatement(transaction, TRY_LOCK_DIGEST, { sha256 });
    return locked;
  }

  /** Whether some variant was uploaded with these bytes as this type: the only type its URL serves them as. */
  async uploadedAs(sha256: string, mimetype: string): Promise<boolean> {
    const [{ served }] = await runStatement(this.dataSource, SERVED_AS, { sha256, mimetype });
    return served;
  }

  /** Records that the store keeps the blob (it may already). */
  async recordBlob(transaction: Transaction, sha256: string, size: number): Promise<void> {
    await transaction.createQueryBuilder().insert().into(MediaBlob).values({ sha256, size }).orIgnore().execute();
  }

  /** The variant refers to the blob from now on (instead of whatever it referred to). */
  async refer(transaction: Transaction, assetUid: string, variant: string, sha256: string): Promise<void> {
    await transaction
      .createQueryBuilder()
      .insert()
      .into(MediaBlobReference)
      .values({ assetUid, variant, sha256 })
      .orUpdate(['sha256'], ['assetUid', 'variant'])
      .execute();
  }

  /** Drops the references of the asset's variants other than `kept`. */
  async keepReferences(transaction: Transaction, assetUid: string, kept: string[]): Promise<void> {
    await transaction
      .createQueryBuilder()
      .delete()
      .from(MediaBlobReference)
      .where('"assetUid" = :assetUid', { assetUid })
      .andWhere('NOT ("variant" = ANY(:kept))', { kept })
      .execute();
  }

  /** Up to `limit` blobs no variant refers to. */
  async unreferenced(limit: number): Promise<string[]> {
    const rows = await this.dataSource
      .createQueryBuilder(MediaBlob, 'blob')
      .select('"blob"."sha256"', 'sha256')
      .where(UNREFERENCED)
      .limit(limit)
      .getRawMany<{ sha256: string }>();
    return rows.map((row) => row.sha256);
  }

  /** Which of `digests` have a blob row. */
  async recorded(digests: string[], transaction?: Transaction): Promise<Set<string>> {
    const rows = await (transaction ?? this.dataSource.manager)
      .createQueryBuilder(MediaBlob, 'blob')
      .select('"blob"."sha256"', 'sha256')
      .where('"blob"."sha256" = ANY(:digests)', { digests })
      .getRawMany<{ sha256: string }>();
    return new Set(rows.map((row) => row.sha256));
  }

  /** Deletes the blob's row if no variant refers to it (under its lock); whether it did. */
  async forgetIfUnreferenced(transaction: Transaction, sha256: string): Promise<boolean> {
    return (await runStatement(transaction, FORGET_UNREFERENCED, { sha256 })).length > 0;
  }
}
