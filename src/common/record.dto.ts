import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Allow, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

/**
 * Fields a client may send back with a record it read (CONTRACT.md section 1). They are accepted and
 * ignored, except `uid`, which must name the record being updated, and `version`, the optimistic lock.
 * Every create and update body extends this, so that "send back what you read" never fails.
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
  @Allow()
  dateCreated?: unknown;

  @ApiHideProperty()
  @Allow()
  dateModified?: unknown;

  @ApiHideProperty()
  @Allow()
  hostUid?: unknown;

  @ApiHideProperty()
  @Allow()
  serverUid?: unknown;

  @ApiHideProperty()
  @Allow()
  sessionUid?: unknown;
}

/** The answer of every count route. */
export class CountDto {
  /** How many records the caller may see match the filters (limit and skip do not cap it). */
  count: number;
}

export const READ_ONLY_FIELDS = [
  'uid',
  'version',
  'dateCreated',
  'dateModified',
  'hostUid',
  'serverUid',
  'sessionUid',
] as const;

/** The client-settable fields of a body: read-only ones dropped, absent ones left out (PUT merges). */
export function writableFields<T extends object>(body: T): Partial<Omit<T, (typeof READ_ONLY_FIELDS)[number]>> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== undefined && !(READ_ONLY_FIELDS as readonly string[]).includes(key)) patch[key] = value;
  }
  return patch as Partial<Omit<T, (typeof READ_ONLY_FIELDS)[number]>>;
}
