import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNumber, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import { RecordBodyDto } from '../../common/record.dto.js';
import { EachNested, IsOmittable } from '../../common/validators.js';
import { StatDto } from './stat.dto.js';

export class CreateItemDto extends RecordBodyDto {
  @ApiProperty({ example: 'Iron sword' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'A plain but trusty blade.' })
  @IsOptional()
  @IsString()
  @Length(0, 4000)
  description?: string | null;

  /** The price, in the game's currency: 0 or more (default 0). */
  @ApiProperty({ example: 150, minimum: 0 })
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1e15)
  cost?: number;

  /** Up to 100 `{ name, value }` pairs (default none). */
  @ApiProperty({
    type: [StatDto],
    example: [
      { name: 'damage', value: 12 },
      { name: 'twoHanded', value: false },
    ],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100)
  @EachNested()
  @Type(() => StatDto)
  stats?: StatDto[];

  /** A free-form reference to the item's asset. */
  @ApiProperty({ type: 'string', nullable: true, example: 'sword-iron' })
  @IsOptional()
  @IsString()
  @Length(0, 200)
  assetId?: string | null;

  /** The uid of the media asset used as the item's icon. */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, example: null })
  @IsOptional()
  @IsUUID()
  iconAssetId?: string | null;

  /** An existing item this one derives from; null clears it. A parent chain may not loop back (400). */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, example: null })
  @IsOptional()
  @IsUUID()
  parentUID?: string | null;
}
