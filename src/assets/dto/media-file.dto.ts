import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { Allow, IsOptional, IsString, IsUrl, Length, Matches, MaxLength, registerDecorator, type ValidationOptions } from 'class-validator';
import { MEDIA_TYPE, SHA256_HEX, VARIANT_KEY } from '../../media/media-files.js';

export const MAX_VARIANTS = 32;

/** One file variant as a client sends it. */
export class MediaFileDto {
  /** The file's media type. */
  @ApiProperty({ example: 'image/png', maxLength: 255 })
  @IsString()
  @MaxLength(255)
  @Matches(MEDIA_TYPE, { message: 'must be a media type such as image/png' })
  mimetype: string;

  /** The file's name, e.g. for a download. */
  @ApiProperty({ example: 'sword-iron.png', minLength: 1, maxLength: 255 })
  @IsString()
  @Length(1, 255)
  name: string;

  /** Where the file is stored: an http or https URL. */
  @ApiProperty({ example: 'https://cdn.example.com/items/sword-iron.png', format: 'uri', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'must be an http or https URL' })
  uri: string;

  /** Hex SHA-256 digest of the file (64 characters); stored in lower case. */
  @ApiProperty({
    type: 'string',
    nullable: true,
    required: false,
    pattern: '^[0-9a-fA-F]{64}$',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  @IsOptional()
  @IsString()
  @Matches(SHA256_HEX, { message: 'must be 64 hexadecimal characters (a SHA-256 digest)' })
  sha256sum?: string | null;

  // A client may send back a file object it read: the service's fields are accepted and ignored.
  @ApiHideProperty()
  @Allow()
  uid?: unknown;

  @ApiHideProperty()
  @Allow()
  dateCreated?: unknown;

  @ApiHideProperty()
  @Allow()
  dateModified?: unknown;

  @ApiHideProperty()
  @Allow()
  version?: unknown;

  @ApiHideProperty()
  @Allow()
  size?: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** What toMediaFileMap makes of a `files` value that is not a JSON object: a Map with no variants to walk. */
export class NotAMediaFileMap extends Map<string, MediaFileDto> {}

/**
 * Turns the JSON object of variants into a Map of MediaFileDto, for `@Transform`. class-validator's
 * `@ValidateNested()` walks a Map by key, so a bad digest is reported at `files.default.sha256sum`;
 * over a plain object it could only report `files`. A variant that is not an object becomes null,
 * which `@ValidateNested()` reports at `files.<key>`. A `files` that is not an object at all becomes an
 * empty NotAMediaFileMap, so that only `@IsMediaFileMap()` reports it (once, at `files`).
 */
export function toMediaFileMap(raw: unknown): unknown {
  if (raw === undefined) return raw;
  if (!isPlainObject(raw)) return new NotAMediaFileMap();
  return new Map(Object.entries(raw).map(([key, value]) => [key, isPlainObject(value) ? plainToInstance(MediaFileDto, value) : null]));
}

/** What is wrong with the map as a whole (its keys), or undefined. The variants are checked one by one elsewhere. */
export function mediaFileMapProblem(value: unknown): string | undefined {
  if (!(value instanceof Map) || value instanceof NotAMediaFileMap) {
    return 'must be an object mapping variant keys (default, thumbnail, ...) to file objects';
  }
  const badKey = [...(value as Map<string, unknown>).keys()].find((key) => !VARIANT_KEY.test(key));
  if (badKey !== undefined) {
    return `has the variant key ${JSON.stringify(badKey)}: keys are 1 to 64 characters of A-Z, a-z, 0-9, _, . and -`;
  }
  if (value.size > MAX_VARIANTS) return `must have at most ${MAX_VARIANTS} variants`;
  if (!value.has('default')) return 'must include the default variant';
  return undefined;
}

/** The `files` map: 1 to 32 valid variant keys, `default` among them. */
export function IsMediaFileMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isMediaFileMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: ({ property, value }) => `${property} ${mediaFileMapProblem(value)}`, ...options },
      validator: { validate: (value: unknown) => mediaFileMapProblem(value) === undefined },
    });
}

/** The example shown in the OpenAPI document for a `files` map. */
export const MEDIA_FILES_EXAMPLE = {
  default: {
    mimetype: 'image/png',
    name: 'sword-iron.png',
    uri: 'https://cdn.example.com/items/sword-iron.png',
    sha256sum: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  },
  thumbnail: {
    mimetype: 'image/webp',
    name: 'sword-iron-64.webp',
    uri: 'https://cdn.example.com/items/sword-iron-64.webp',
  },
};
