import { ApiProperty } from '@nestjs/swagger';
import { JsonValue } from '../../common/json-values.js';
import { progressValueProblem } from '../progress-value.js';
import type { ProgressValue } from '../skill-progress.entity.js';

export class AddProgressDto {
  /**
   * A number is added to a numeric progress (which starts at 0); anything else replaces the progress.
   * A sum beyond ±1.7976931348623157e308 (the largest finite double) is refused with 400 and adds nothing;
   * every number, in an object too, must be finite.
   */
  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }, { type: 'boolean' }, { type: 'object' }], example: 5 })
  @JsonValue(progressValueProblem)
  value: ProgressValue;
}
