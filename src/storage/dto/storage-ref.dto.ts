import { applyDecorators } from '@nestjs/common';
import { ApiProperty, PickType } from '@nestjs/swagger';
import { IsNotIn, IsString, IsUUID, Matches } from 'class-validator';
import { IsOmittable } from '../../common/validators.js';
import { RESERVED_COLLECTIONS, STORAGE_COLLECTION_RULE, STORAGE_NAME, STORAGE_NAME_RULE } from '../storage-rules.js';

/** A collection or key: 1 to 128 of A-Z a-z 0-9 _ . - (400 otherwise). */
export const IsStorageName = () =>
  applyDecorators(IsString(), Matches(STORAGE_NAME, { message: `$property must be ${STORAGE_NAME_RULE}` }));

/** One object a batch names. */
export class StorageRefDto {
  @ApiProperty({ pattern: STORAGE_NAME.source, example: 'saves' })
  @IsStorageName()
  collection: string;

  @ApiProperty({ pattern: STORAGE_NAME.source, example: 'slot-1' })
  @IsStorageName()
  key: string;

  /** Whose: the caller's when absent. Only admins write or delete another user's objects (403). */
  @ApiProperty({ format: 'uuid', required: false })
  @IsOmittable()
  @IsUUID()
  ownerUid?: string;
}

/** One object a write names: in a collection a list can name (not `read`, whose path POST /storage/read holds). */
export class StorageWriteRefDto extends PickType(StorageRefDto, ['key', 'ownerUid'] as const) {
  @ApiProperty({ pattern: STORAGE_NAME.source, not: { enum: [...RESERVED_COLLECTIONS] }, example: 'saves' })
  @IsStorageName()
  @IsNotIn(RESERVED_COLLECTIONS, { message: `$property must be ${STORAGE_COLLECTION_RULE}` })
  collection: string;
}
