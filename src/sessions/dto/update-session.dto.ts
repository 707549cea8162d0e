import { PartialType } from '@nestjs/swagger';
import { CreateSessionDto } from './create-session.dto.js';

/** PUT merges: the fields present replace the stored ones (null is refused except for `password`). */
export class UpdateSessionDto extends PartialType(CreateSessionDto, { skipNullProperties: false }) {}
