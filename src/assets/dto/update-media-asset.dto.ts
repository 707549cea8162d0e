import { PartialType } from '@nestjs/swagger';
import { CreateMediaAssetDto } from './create-media-asset.dto.js';

/**
 * PUT merges: the fields present replace the stored ones (`files` as a whole). `skipNullProperties:
 * false` keeps null refused for `name` and `files`, and allowed for `description` (it clears it).
 */
export class UpdateMediaAssetDto extends PartialType(CreateMediaAssetDto, { skipNullProperties: false }) {}
