import { ApiProperty } from '@nestjs/swagger';
import { StorageObject } from '../storage-object.entity.js';
import { STORAGE_NAME, STORAGE_VERSION } from '../storage-rules.js';

/** Where an object is. */
abstract class StorageAddress {
  @ApiProperty({ pattern: STORAGE_NAME.source, example: 'saves' })
  collection: string;

  @ApiProperty({ pattern: STORAGE_NAME.source, example: 'slot-1' })
  key: string;

  @ApiProperty({ format: 'uuid' })
  ownerUid: string;
}

/** A written object: where it is and its new version. */
export class StorageAck extends StorageAddress {
  @ApiProperty({ pattern: STORAGE_VERSION.source, example: '9f86d081884c7d659a2feaa0c55ad015' })
  version: string;
}

export class StorageAcksDto {
  /** One per write, in the order of the request. */
  @ApiProperty({ type: [StorageAck] })
  acks: StorageAck[];
}

export class StorageObjectsDto {
  /** The objects found that the caller may read, in the order of the request (the others are simply absent). */
  @ApiProperty({ type: [StorageObject] })
  objects: StorageObject[];
}

export class StoragePageDto {
  /** In the order of their keys. */
  @ApiProperty({ type: [StorageObject] })
  objects: StorageObject[];

  /** Where the next page starts (send it as `cursor`); null on the last page. */
  @ApiProperty({ type: 'string', nullable: true, example: 'c2xvdC0y' })
  cursor: string | null;
}

/** A collection of one owner: its name, and what it holds. */
export class StorageCollectionDto {
  @ApiProperty({ pattern: STORAGE_NAME.source, example: 'saves' })
  collection: string;

  @ApiProperty({ type: 'integer', minimum: 1, example: 3 })
  objects: number;

  /** Bytes of the values' compact JSON, as the quota counts them. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 2048 })
  bytes: number;
}

export class StorageCollectionsDto {
  /** In the order of their names. */
  @ApiProperty({ type: [StorageCollectionDto] })
  collections: StorageCollectionDto[];

  /** Where the next page starts (send it as `cursor`); null on the last page. */
  @ApiProperty({ type: 'string', nullable: true, example: 'c2F2ZXM' })
  cursor: string | null;
}

/**
 * `storage.updated`: an object of yours was written or deleted (on any device, or by the game's
 * server). Re-read it if `version` is not the one you hold; null: it was deleted.
 */
export class StorageUpdated extends StorageAddress {
  @ApiProperty({ type: 'string', nullable: true, pattern: STORAGE_VERSION.source, example: '9f86d081884c7d659a2feaa0c55ad015' })
  version: string | null;
}
