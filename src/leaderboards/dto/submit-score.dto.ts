import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { LIMITS } from '../../common/limits.js';
import { IsOmittable, jsonObjectBounds } from '../../common/validators.js';
import { IsInt64, IsSmallObject } from './int64.validators.js';

export class SubmitScoreDto {
  @IsInt64({ description: 'A 64-bit integer, negative too: a JSON number up to 2^53 - 1, a string of digits beyond.', example: 1200 })
  score: number | string;

  @IsOmittable()
  @IsInt64({ description: 'Default 0. Ranks equal scores (its own sort order and operator).', required: false, example: 0 })
  subscore?: number | string;

  /** Replaces the record's when the submission changes its score or subscore (so it describes the score shown). */
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: false,
    additionalProperties: true,
    ...jsonObjectBounds(LIMITS.recordMetadataBytes),
    description: `At most ${LIMITS.recordMetadataBytes} bytes of JSON.`,
    example: { replay: 'r-2027-01-05-1842' },
  })
  @IsOptional()
  @IsSmallObject(LIMITS.recordMetadataBytes)
  metadata?: Record<string, unknown> | null;

  /** One of your personas (an admin: anyone's); default: your first. */
  @ApiProperty({ format: 'uuid', required: false, example: '3f0c9a2e-5b7d-4e1a-9c62-8d4f1b2a7e90' })
  @IsOmittable()
  @IsUUID()
  personaUid?: string;
}

export class JoinLeaderboardDto {
  /** One of your personas (an admin: anyone's); default: your first. */
  @ApiProperty({ format: 'uuid', required: false, example: '3f0c9a2e-5b7d-4e1a-9c62-8d4f1b2a7e90' })
  @IsOmittable()
  @IsUUID()
  personaUid?: string;
}
