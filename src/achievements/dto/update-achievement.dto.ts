import { PartialType } from '@nestjs/swagger';
import { CreateAchievementDto } from './create-achievement.dto.js';

/** PUT merges: the fields present replace the stored ones; null clears `description` and `badge`, not `name`. */
export class UpdateAchievementDto extends PartialType(CreateAchievementDto, { skipNullProperties: false }) {}
