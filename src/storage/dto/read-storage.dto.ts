import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, Matches } from 'class-validator';
import { LIMITS } from '../../common/limits.js';
import { EachNested, IsOmittable } from '../../common/validators.js';
import { STORAGE_VERSION } from '../storage-rules.js';
import { StorageRefDto } from './storage-ref.dto.js';

export class ReadStorageDto {
  @ApiProperty({
    type: [StorageRefDto],
    minItems: 1,
    maxItems: LIMITS.storageBatch,
    example: [
      { collection: 'saves', key: 'slot-1' },
      { collection: 'settings', key: 'audio' },
    ],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.storageBatch)
  @EachNested()
  @Type(() => StorageRefDto)
  objects: StorageRefDto[];
}

/** One object to delete. */
export class StorageDeleteDto extends StorageRefDto {
  /** Only if the object still has this version (409 VERSION_CONFLICT otherwise, also when it is gone). */
  @ApiProperty({ required: false, pattern: STORAGE_VERSION.source, example: '9f86d081884c7d659a2feaa0c55ad015' })
  @IsOmittable()
  @IsString()
  @Matches(STORAGE_VERSION, { message: '$property must be a version as read (32 hex digits)' })
  version?: string;
}

export class DeleteStorageDto {
  @ApiProperty({ type: [StorageDeleteDto], minItems: 1, maxItems: LIMITS.storageBatch, example: [{ collection: 'saves', key: 'slot-2' }] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.storageBatch)
  @EachNested()
  @Type(() => StorageDeleteDto)
  objects: StorageDeleteDto[];
}
