import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { RecordBodyDto } from '../../common/record.dto.js';

export class CreateAchievementDto extends RecordBodyDto {
  @ApiProperty({ example: 'Dragon slayer', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ type: 'string', nullable: true, required: false, example: 'Defeat the red dragon of the northern peaks.' })
  @IsOptional()
  @IsString()
  @Length(0, 4000)
  description?: string | null;

  /**
   * The badge shown for the achievement. Its form is the game's choice (the interface document leaves
   * it open): a media asset uid, a URL, a sprite name. At most 2048 characters.
   */
  @ApiProperty({
    type: 'string',
    nullable: true,
    required: false,
    maxLength: 2048,
    example: 'https://cdn.example.com/badges/dragon-slayer.png',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  badge?: string | null;
}
