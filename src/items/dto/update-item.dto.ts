import { PartialType } from '@nestjs/swagger';
import { CreateItemDto } from './create-item.dto.js';

/**
 * PUT merges: the fields present replace the stored ones. `skipNullProperties: false` keeps null
 * refused where the create body refuses it (a name cannot be cleared), and allowed where it clears.
 */
export class UpdateItemDto extends PartialType(CreateItemDto, { skipNullProperties: false }) {}
