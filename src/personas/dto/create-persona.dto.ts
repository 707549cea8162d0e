import { IsString, Length } from 'class-validator';
import { RecordBodyDto } from '../../common/record.dto.js';

export class CreatePersonaDto extends RecordBodyDto {
  /** The name shown to other players. */
  @IsString()
  @Length(1, 100)
  name: string;
}
