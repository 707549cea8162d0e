import { ApiProperty } from '@nestjs/swagger';

/** A text asset's text in the language that best matches the reader's. */
export class ResolvedTextDto {
  /** The key whose text was chosen: a language tag as stored (`pt-BR`, `pt`) or `default`. */
  @ApiProperty({ example: 'pt' })
  language: string;

  @ApiProperty({ example: 'Bem-vindo, aventureiro!' })
  text: string;
}
