import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { IsPrimitiveValue } from '../../common/validators.js';
import type { StatValue } from '../item.entity.js';

export class StatDto {
  /** The statistic's name, e.g. `damage`. */
  @IsString()
  @Length(1, 128)
  name: string;

  @ApiProperty({ oneOf: [{ type: 'string', maxLength: 1000 }, { type: 'number' }, { type: 'boolean' }], example: 12 })
  @IsPrimitiveValue()
  value: StatValue;
}
