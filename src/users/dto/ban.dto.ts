import { ApiProperty } from '@nestjs/swagger';
import { IsISO8601, IsString, Length } from 'class-validator';
import { IsOmittable } from '../../common/validators.js';

export class BanDto {
  /** Why (shown to admins in the user and the audit; not to the player). */
  @ApiProperty({ minLength: 1, maxLength: 500, example: 'Cheating: speed hack in ranked matches' })
  @IsString()
  @Length(1, 500)
  reason: string;

  /** When the ban ends by itself (ISO 8601, in the future); left out: until an admin lifts it. */
  @ApiProperty({ type: 'string', format: 'date-time', required: false, example: '2026-12-24T00:00:00.000Z' })
  @IsOmittable()
  @IsISO8601({ strict: true, strictSeparator: true })
  until?: string;
}
