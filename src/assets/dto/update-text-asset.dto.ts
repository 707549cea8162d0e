import { PartialType } from '@nestjs/swagger';
import { CreateTextAssetDto } from './create-text-asset.dto.js';

/** PUT merges: the fields present replace the stored ones (`text` as a whole); null clears `description` only. */
export class UpdateTextAssetDto extends PartialType(CreateTextAssetDto, { skipNullProperties: false }) {}
