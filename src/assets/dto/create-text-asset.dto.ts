import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { RecordBodyDto } from '../../common/record.dto.js';
import { REQUIRED_KEYS } from '../../common/fields.js';
import { IsLocalizedText, LOCALIZED_TEXT_EXAMPLE, MAX_LANGUAGES, MAX_TEXT_LENGTH, TEXT_KEY_PATTERN } from './localized-text.validator.js';

export class CreateTextAssetDto extends RecordBodyDto {
  @ApiProperty({ example: 'Welcome banner', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ type: 'string', nullable: true, required: false, example: 'Shown on the title screen.' })
  @IsOptional()
  @IsString()
  @Length(0, 4000)
  description?: string | null;

  @ApiProperty({
    type: 'object',
    description:
      `The texts by language: \`default\` (required) and BCP 47 language tags such as \`en\`, \`pt-BR\`, ` +
      `\`zh-Hant\` (at most ${MAX_LANGUAGES} keys; one text per language whatever the case of its tag; ` +
      `tags are stored as given). Each text is a string of at most ${MAX_TEXT_LENGTH} characters. The ` +
      'whole map is replaced on update.',
    additionalProperties: { type: 'string', maxLength: MAX_TEXT_LENGTH },
    // ApiProperty's own `required` says whether the property is; the map's required keys go by this name.
    ...{ [REQUIRED_KEYS]: ['default'] },
    maxProperties: MAX_LANGUAGES,
    ...{ propertyNames: { pattern: TEXT_KEY_PATTERN } },
    example: LOCALIZED_TEXT_EXAMPLE,
  })
  @IsLocalizedText()
  text: Record<string, string>;
}
