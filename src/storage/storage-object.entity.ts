import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Check, Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Secret } from '../common/fields.js';
import type { StoredJson } from '../common/stored-json.js';
import { READ_PERMISSIONS, type ReadPermission, STORAGE_NAME, WRITE_PERMISSIONS, type WritePermission } from './storage-rules.js';

const NAME_CHECK = STORAGE_NAME.source.replace(/'/g, "''");

/**
 * A player's saved data (a save slot, settings, a loadout, a ghost replay): a JSON object under a
 * collection and a key, owned by a user. Its version is a hash of its value; who may read and write it
 * is stated on it. The primary key leads with the owner: an owner's objects are read, listed and
 * counted together; names compare byte by byte (collation C), the order of a list and its cursor.
 */
@Entity('storage_objects')
@Check('storage_objects_collection_check', `"collection" ~ '${NAME_CHECK}'`)
@Check('storage_objects_key_check', `"key" ~ '${NAME_CHECK}'`)
@Check('storage_objects_value_check', `jsonb_typeof("value") = 'object'`)
@Check('storage_objects_permissionRead_check', `"permissionRead" IN ('NONE', 'OWNER', 'PUBLIC')`)
@Check('storage_objects_permissionWrite_check', `"permissionWrite" IN ('NONE', 'OWNER')`)
@Check('storage_objects_size_check', `"size" >= 0`)
export class StorageObject {
  /** The user who owns it: their storage quota counts it. */
  @ApiProperty({ format: 'uuid' })
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'storage_objects_pkey' })
  @ForeignKey(() => User, { name: 'storage_objects_ownerUid_fkey', onDelete: 'CASCADE' })
  ownerUid: string;

  @ApiProperty({ pattern: STORAGE_NAME.source, example: 'saves' })
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'storage_objects_pkey' })
  collection: string;

  @ApiProperty({ pattern: STORAGE_NAME.source, example: 'slot-1' })
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'storage_objects_pkey' })
  key: string;

  /** The stored JSON object (at most STORAGE_VALUE_MAX_BYTES of compact JSON). */
  @ApiProperty({ type: 'object', additionalProperties: true, example: { level: 12, checkpoint: 'harbour' } })
  @Column({ type: 'jsonb' })
  // Read back as jsonb's text and answered as it is (StoredJson): never parsed on the way out.
  value: Record<string, unknown> | StoredJson;

  /** A hash of the stored value (also its ETag): state it in a write or delete to make it conditional. */
  @ApiProperty({ pattern: '^[0-9a-f]{32}$', example: '9f86d081884c7d659a2feaa0c55ad015' })
  @Column({ type: 'text' })
  version: string;

  /** NONE: only admins (and game servers) read it; OWNER: its owner too; PUBLIC: every signed-in player. */
  @ApiProperty({ enum: READ_PERMISSIONS, enumName: 'StorageReadPermission' })
  @Column({ type: 'text', default: 'OWNER' })
  permissionRead: ReadPermission;

  /** NONE: only admins write it (progress a client must not forge); OWNER: its owner too. */
  @ApiProperty({ enum: WRITE_PERMISSIONS, enumName: 'StorageWritePermission' })
  @Column({ type: 'text', default: 'OWNER' })
  permissionWrite: WritePermission;

  @ApiProperty({ type: 'string', format: 'date-time' })
  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  dateCreated: Date;

  @ApiProperty({ type: 'string', format: 'date-time' })
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  dateModified: Date;

  /** Bytes of the value's compact JSON, as the limits and quotas count it. */
  @ApiHideProperty()
  @Secret()
  @Column({ type: 'integer' })
  size: number;
}

/**
 * What one owner's storage holds, kept with every write and delete: the row a batch locks first, so
 * that batches of one owner take turns and no two of them can pass a quota together.
 */
@Entity('storage_usage')
@Check('storage_usage_objects_check', `"objects" >= 0`)
@Check('storage_usage_bytes_check', `"bytes" >= 0`)
export class StorageUsage {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'storage_usage_pkey' })
  @ForeignKey(() => User, { name: 'storage_usage_ownerUid_fkey', onDelete: 'CASCADE' })
  ownerUid: string;

  @Column({ type: 'integer', default: 0 })
  objects: number;

  /** bigint: an admin may write past the quotas. Read as a string by pg. */
  @Column({ type: 'bigint', default: 0 })
  bytes: string;
}
