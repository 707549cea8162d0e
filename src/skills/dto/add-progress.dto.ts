import { ApiProperty } from '@nestjs/swagger';
import { JsonValue } from '../../common/json-values.js';
import { jsonObjectBounds } from '../../common/validators.js';
import { MAX_PROGRESS_OBJECT_BYTES, MAX_PROGRESS_TEXT, progressValueProblem } from '../progress-value.js';
import type { ProgressValue } from '../skill-progress.entity.js';

export class AddProgressDto {
  /**
   * A number is added to a numeric progress (which starts at 0); anything else replaces the progress.
   * A sum beyond ±1.7976931348623157e308 (the largest finite double) is refused with 400 and adds nothing;
   * every number, in an object too, must be finite.
   */
  @ApiProperty({
    oneOf: [{ type: 'number' }, { type: 'string', maxLength: MAX_PROGRESS_TEXT }, { type: 'boolean' }, { type: 'object' }],
    ...jsonObjectBounds(MAX_PROGRESS_OBJECT_BYTES),
    example: 5,
  })
  @JsonValue(progressValueProblem)
  value: ProgressValue;
}
