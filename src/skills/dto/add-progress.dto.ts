import { ApiProperty } from '@nestjs/swagger';
import { registerDecorator } from 'class-validator';
import type { ProgressValue } from '../skill-progress.entity.js';

const MAX_OBJECT_BYTES = 16 * 1024;

function IsProgressValue(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isProgressValue',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: 'value must be a finite number, a string (up to 10000 characters), a boolean or a JSON object (up to 16 KiB)',
      },
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'number' && Number.isFinite(value)) ||
          (typeof value === 'string' && value.length <= 10_000) ||
          typeof value === 'boolean' ||
          (value !== null &&
            typeof value === 'object' &&
            !Array.isArray(value) &&
            Buffer.byteLength(JSON.stringify(value)) <= MAX_OBJECT_BYTES),
      },
    });
}

export class AddProgressDto {
  /** A number is added to a numeric progress (which starts at 0); anything else replaces the progress. */
  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }, { type: 'boolean' }, { type: 'object' }], example: 5 })
  @IsProgressValue()
  value: ProgressValue;
}
