import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { RecordBodyDto } from '../../common/record.dto.js';

export class CreatePersonaDto extends RecordBodyDto {
  /** The name shown to other players. */
  @ApiProperty({ example: 'Mira the Swift' })
  @IsString()
  @Length(1, 100)
  name: string;
}
