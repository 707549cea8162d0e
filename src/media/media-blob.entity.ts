import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** bigint columns come back from pg as strings; sizes stay far below 2^53. */
const AS_NUMBER = { to: (value: number) => value, from: (value: string | null) => (value === null ? null : Number(value)) };

/**
 * Bytes the media store keeps, once per digest (content-addressed). A row exists while its blob may be
 * referred to; the sweep removes a row no variant refers to, and its blob with it.
 */
@Entity('media_blobs')
@Check('media_blobs_sha256_check', `"sha256" ~ '^[0-9a-f]{64}$'`)
@Check('media_blobs_size_check', '"size" >= 0')
export class MediaBlob {
  /** Lower-case hex SHA-256 of the bytes: the blob's name in the store. */
  @PrimaryColumn({ type: 'text' })
  sha256: string;

  @Column({ type: 'bigint', transformer: AS_NUMBER })
  size: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  dateCreated: Date;
}

/**
 * A media asset's variant that is a file stored here. The foreign key to the blob makes "a blob a
 * variant refers to is never deleted" a rule of the database: the sweep's DELETE fails rather than
 * orphan a variant, and deleting an asset drops its references.
 */
@Entity('media_blob_references')
@Index('media_blob_references_sha256_idx', ['sha256'])
export class MediaBlobReference {
  @PrimaryColumn({ type: 'uuid' })
  // By the entity's name: the files belong to assets' records, and media/ imports nothing of assets/.
  @ForeignKey('MediaAsset', { name: 'media_blob_references_assetUid_fkey', onDelete: 'CASCADE' })
  assetUid: string;

  @PrimaryColumn({ type: 'text' })
  variant: string;

  @Column({ type: 'text' })
  @ForeignKey(() => MediaBlob, { name: 'media_blob_references_sha256_fkey', onDelete: 'NO ACTION' })
  sha256: string;
}

/**
 * A direct upload in progress: the client was given a presigned URL for the bytes of `variant` of an
 * asset, and says what they will be. Completing it checks them against the store; an upload not
 * completed by `expiresAt` is removed with its bytes by the sweep.
 */
@Entity('media_uploads')
@Index('media_uploads_expiresAt_idx', ['expiresAt'])
@Check('media_uploads_sha256_check', `"sha256" ~ '^[0-9a-f]{64}$'`)
export class MediaUpload {
  @PrimaryGeneratedColumn('uuid')
  uid: string;

  @Column({ type: 'uuid' })
  @ForeignKey('MediaAsset', { name: 'media_uploads_assetUid_fkey', onDelete: 'CASCADE' })
  assetUid: string;

  @Column({ type: 'text' })
  variant: string;

  @Column({ type: 'text' })
  mimetype: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  sha256: string;

  @Column({ type: 'bigint', transformer: AS_NUMBER })
  size: number;

  @Column({ type: 'timestamptz', precision: 3 })
  expiresAt: Date;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  dateCreated: Date;
}
