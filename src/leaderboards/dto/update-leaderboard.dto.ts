import { PartialType } from '@nestjs/swagger';
import { CreateLeaderboardDto } from './create-leaderboard.dto.js';

/** PUT merges; the settings that cannot change may be sent back unchanged (a record read and sent back). */
export class UpdateLeaderboardDto extends PartialType(CreateLeaderboardDto, { skipNullProperties: false }) {}
