import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import { LIMITS } from '../../../common/limits.js';

/** Printable ASCII: ids are ASCII in practice (UUIDs, hex, base64), and no two spellings of one id can differ. */
export const DEVICE_ID_PATTERN = /^[\x20-\x7E]+$/;

/**
 * A device id in a body: the random id the game made on first launch and keeps in its persistent
 * storage. It is a secret (whoever holds it is the guest): never logged, never answered, stored only
 * as a keyed hash.
 */
export const DeviceIdProperty = (required = true) =>
  applyDecorators(
    ApiProperty({
      required,
      description:
        'The id the game made on first launch (a random UUID is best) and keeps in its persistent storage: ' +
        `${LIMITS.deviceIdMinLength} to ${LIMITS.deviceIdMaxLength} printable ASCII characters. A secret: whoever has it is the guest.`,
      minLength: LIMITS.deviceIdMinLength,
      maxLength: LIMITS.deviceIdMaxLength,
      pattern: DEVICE_ID_PATTERN.source,
      example: '3f9c2a7e-5b1d-4c8e-9a6f-0d2b4e7c1a53',
    }),
    IsString(),
    Length(LIMITS.deviceIdMinLength, LIMITS.deviceIdMaxLength),
    Matches(DEVICE_ID_PATTERN, { message: '$property must be printable ASCII characters' }),
  );
