import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import { RecordBodyDto } from '../../common/record.dto.js';
import { REQUIRED_KEYS } from '../../common/fields.js';
import { VARIANT_KEY } from '../../media/media-files.js';
import { IsMediaFileMap, MAX_VARIANTS, MEDIA_FILES_EXAMPLE, MediaFileDto, toMediaFileMap } from './media-file.dto.js';

export class CreateMediaAssetDto extends RecordBodyDto {
  @ApiProperty({ example: 'Iron sword artwork', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ type: 'string', nullable: true, required: false, example: 'Inventory icon and thumbnail of the iron sword.' })
  @IsOptional()
  @IsString()
  @Length(0, 4000)
  description?: string | null;

  /**
   * Sent as a JSON object; the validation pipe turns it into a Map (see toMediaFileMap) so that errors
   * name the variant and field, e.g. `files.default.sha256sum`.
   */
  @ApiProperty({
    type: 'object',
    description:
      `The file variants, by key (1 to ${MAX_VARIANTS} keys of 1 to 64 characters of A-Z, a-z, 0-9, _, . and -). ` +
      '`default` is required. The whole map is replaced on update: variants left out are removed; a variant ' +
      "sent unchanged keeps its uid, dates and version, a changed one gets version + 1. The service's " +
      'fields of a file (uid, dates, version) may be sent back and are ignored.',
    additionalProperties: { $ref: getSchemaPath(MediaFileDto) },
    // ApiProperty's own `required` says whether the property is; the map's required keys go by this name.
    ...{ [REQUIRED_KEYS]: ['default'] },
    minProperties: 1,
    maxProperties: MAX_VARIANTS,
    ...{ propertyNames: { pattern: VARIANT_KEY.source } },
    example: MEDIA_FILES_EXAMPLE,
  })
  @Transform(({ obj, key }) => toMediaFileMap((obj as Record<string, unknown>)[key]))
  @IsMediaFileMap()
  @ValidateNested({ message: 'must be a file object: { mimetype, name, uri, sha256sum? }' })
  files: Map<string, MediaFileDto>;
}
