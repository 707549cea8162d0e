import { ApiProperty, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, Matches } from 'class-validator';
import { JsonValue } from '../../common/json-values.js';
import { LIMITS } from '../../common/limits.js';
import { SentBackDatesDto } from '../../common/record.dto.js';
import { EachNested, IsOmittable } from '../../common/validators.js';
import {
  READ_PERMISSIONS,
  type ReadPermission,
  storageValueProblem,
  WRITE_PERMISSIONS,
  WRITE_VERSION_PATTERN,
  type WritePermission,
} from '../storage-rules.js';
import { StorageWriteRefDto } from './storage-ref.dto.js';

/** One object to write: created, or replaced whole. An object read may be sent back (its dates are ignored; its version makes the write conditional). */
export class StorageWriteDto extends IntersectionType(StorageWriteRefDto, SentBackDatesDto) {
  /** Its bytes are bounded by a setting, which the document states (storage.openapi.ts). */
  @ApiProperty({ type: 'object', additionalProperties: true, example: { level: 12, checkpoint: 'harbour' } })
  @JsonValue(storageValueProblem)
  value: Record<string, unknown>;

  /**
   * Absent: write whatever is stored. `*`: only if the object does not exist yet. A version (a hash,
   * as read): only if the object still has it. Otherwise 409 VERSION_CONFLICT, and nothing of the batch
   * is written.
   */
  @ApiProperty({ required: false, pattern: WRITE_VERSION_PATTERN, example: '*' })
  @IsOmittable()
  @IsString()
  @Matches(new RegExp(WRITE_VERSION_PATTERN), { message: '$property must be * or a version as read (32 hex digits)' })
  version?: string;

  /** Who reads it. A new object defaults to OWNER; a replaced one keeps its own. NONE is an admin's to set. */
  @ApiProperty({ enum: READ_PERMISSIONS, enumName: 'StorageReadPermission', required: false })
  @IsOmittable()
  @IsIn(READ_PERMISSIONS)
  permissionRead?: ReadPermission;

  /** Who writes it. A new object defaults to OWNER; a replaced one keeps its own. NONE is an admin's to set. */
  @ApiProperty({ enum: WRITE_PERMISSIONS, enumName: 'StorageWritePermission', required: false })
  @IsOmittable()
  @IsIn(WRITE_PERMISSIONS)
  permissionWrite?: WritePermission;
}

export class WriteStorageDto {
  @ApiProperty({
    type: [StorageWriteDto],
    minItems: 1,
    maxItems: LIMITS.storageBatch,
    example: [
      { collection: 'saves', key: 'slot-1', value: { level: 12, checkpoint: 'harbour' } },
      { collection: 'settings', key: 'audio', value: { music: 0.5, muted: false }, version: '*' },
    ],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.storageBatch)
  @EachNested()
  @Type(() => StorageWriteDto)
  objects: StorageWriteDto[];
}
