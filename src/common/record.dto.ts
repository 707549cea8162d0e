import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsUUID, Max, Min } from 'class-validator';
import { ReadOnlyField } from './fields.js';
import { IsOmittable } from './validators.js';

/** The dates of what a client read, which it may send back with it: accepted and ignored. */
export class SentBackDatesDto {
  /** Sent back with a record or object read; ignored. */
  @ApiProperty({ type: 'string', format: 'date-time', readOnly: true, required: false, example: '2026-11-22T09:38:09.291Z' })
  @ReadOnlyField()
  dateCreated?: never;

  /** Sent back with a record or object read; ignored. */
  @ApiProperty({ type: 'string', format: 'date-time', readOnly: true, required: false, example: '2026-11-22T09:38:09.291Z' })
  @ReadOnlyField()
  dateModified?: never;
}

/**
 * Fields a client may send back with a record it read (docs/CONTRACT.md section 1). They are accepted and
 * ignored, except `uid`, which must name the record being updated, and `version`, the optimistic lock.
 * Every create and update body extends this, so that "send back what you read" never fails; a
 * resource whose records carry more read-only fields declares them with @ReadOnlyField() in its body.
 */
export abstract class RecordBodyDto extends SentBackDatesDto {
  /** The record's uid, when a record read is sent back: it must name the record being updated. */
  @ApiProperty({ format: 'uuid', readOnly: true, required: false, example: '0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70' })
  @IsOmittable()
  @IsUUID()
  uid?: string;

  /**
   * The version this write is based on. When it is given and the record has moved on, nothing is
   * written and the answer is 409 VERSION_CONFLICT. The `If-Match: "<version>"` header does the same.
   */
  @ApiProperty({ type: 'integer', required: false, example: 0 })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  version?: number;
}

/** The answer of every count route. */
export class CountDto {
  /** How many records the caller may see match the filters (limit and skip do not cap it). */
  @ApiProperty({ type: 'integer', minimum: 0, example: 42 })
  count: number;
}

/** The fields a body sets. */
export type WritableFields<T extends RecordBodyDto> = Partial<Omit<T, 'uid' | 'version'>>;

/** The fields a body sets: `uid` and `version` (the write's preconditions) dropped, absent ones left out (PUT merges). */
export function writableFields<T extends RecordBodyDto>(body: T): WritableFields<T> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== undefined && key !== 'uid' && key !== 'version') patch[key] = value;
  }
  return patch as WritableFields<T>;
}
