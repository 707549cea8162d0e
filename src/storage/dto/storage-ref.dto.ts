import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, Matches } from 'class-validator';
import { IsOmittable } from '../../common/validators.js';
import { STORAGE_NAME, STORAGE_NAME_RULE } from '../storage-rules.js';

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
