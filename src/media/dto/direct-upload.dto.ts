import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { MEDIA_TYPE, SHA256_HEX } from '../media-files.js';

/** What a client will send straight to the store: the service checks the bytes against it when the upload completes. */
export class CreateDirectUploadDto {
  @ApiProperty({ example: 'image/png', maxLength: 255, description: 'The media type the file will be served as (on MEDIA_TYPES).' })
  @IsString()
  @MaxLength(255)
  @Matches(MEDIA_TYPE, { message: 'must be a media type such as image/png' })
  mimetype: string;

  @ApiProperty({ example: 'world-map.png', minLength: 1, maxLength: 255 })
  @IsString()
  @Length(1, 255)
  name: string;

  @ApiProperty({ pattern: '^[0-9a-fA-F]{64}$', description: 'Hex SHA-256 of the bytes the client will send.', example: 'ab'.repeat(32) })
  @IsString()
  @Matches(SHA256_HEX, { message: 'must be 64 hexadecimal characters (a SHA-256 digest)' })
  sha256sum: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 5 * 1024 ** 3,
    description: 'Bytes the client will send (at most MEDIA_MAX_BYTES).',
    example: 20512,
  })
  @IsInt()
  @Min(0)
  @Max(5 * 1024 ** 3)
  size: number;
}

/** Where to send the bytes of a direct upload, and until when. */
export class DirectUploadDto {
  @ApiProperty({ format: 'uuid', description: 'Names the upload in `POST …/uploads/{uploadId}/complete`.' })
  uploadId: string;

  @ApiProperty({ format: 'uri', description: 'A presigned URL of the S3-compatible store: PUT the bytes there, as the body.' })
  url: string;

  @ApiProperty({ enum: ['PUT'], example: 'PUT' })
  method: 'PUT';

  @ApiProperty({ format: 'date-time', description: 'When the URL stops working; complete the upload before.' })
  expiresAt: string;
}
