import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { ReadOnlyField } from './fields.js';

/**
 * Fields a client may send back with a record it read (docs/CONTRACT.md section 1). They are accepted and
 * ignored, except `uid`, which must name the record being updated, and `version`, the optimistic lock.
 * Every create and update body extends this, so that "send back what you read" never fails; a
 * resource whose records carry more read-only fields declares them with @ReadOnlyField() in its body.
 */
export abstract class RecordBodyDto {
  @ApiHideProperty()
  @IsOptional()
  @IsUUID()
  uid?: string;

  /**
   * The version this write is based on. When it is given and the record has moved on, nothing is
   * written and the answer is 409 VERSION_CONFLICT. The `If-Match: "<version>"` header does the same.
   */
  @ApiProperty({ type: 'integer', required: false, example: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  version?: number;

  @ApiHideProperty()
  @ReadOnlyField()
  dateCreated?: never;

  @ApiHideProperty()
  @ReadOnlyField()
  dateModified?: never;
}

/** The answer of every count route. */
export class CountDto {
  /** How many records the caller may see match the filters (limit and skip do not cap it). */
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
