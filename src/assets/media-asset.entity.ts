import { ApiHideProperty, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable, Secret } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import type { StoredMediaFile } from '../media/media-files.js';

/** One file variant of a media asset, as stored and returned. */
export class MediaFile implements StoredMediaFile {
  @ApiProperty({ example: 'image/png' })
  mimetype: string;

  @ApiProperty({ example: 'sword-iron.png' })
  name: string;

  @ApiProperty({ example: 'https://cdn.example.com/items/sword-iron.png', format: 'uri' })
  uri: string;

  /** Lower-case hex SHA-256 digest, or null when none was given. */
  @ApiProperty({ type: 'string', nullable: true, example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' })
  sha256sum: string | null;

  /** The variant's own id (UUID v4); kept while the variant exists, even when its file changes. */
  @ApiProperty({ format: 'uuid' })
  uid: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T09:38:09.291Z' })
  dateCreated: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T09:38:09.291Z' })
  dateModified: string;

  /** 0 when the variant was added, +1 each time its mimetype, name, uri or sha256sum changed. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 0 })
  version: number;

  /**
   * Bytes of a file stored by the service (uploaded with `PUT /assets/media/{id}/files/{variant}`, its
   * `uri` the service's own and `sha256sum` checked); null for a file hosted elsewhere.
   */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, example: 20512 })
  size: number | null;
}

export const MEDIA_FILE_EXAMPLE: MediaFile = {
  mimetype: 'image/png',
  name: 'sword-iron.png',
  uri: 'https://cdn.example.com/items/sword-iron.png',
  sha256sum: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  uid: '0b6f1c52-3d43-4a8e-9a43-1f0e5b8b7c11',
  dateCreated: '2026-11-22T09:38:09.291Z',
  dateModified: '2026-11-22T09:38:09.291Z',
  version: 0,
  size: null,
};

/** A media asset: a named set of file variants (`default`, `thumbnail`, ...), uploaded here or stored elsewhere, by URL. */
@Entity('media_assets')
@Index('media_assets_dateCreated_uid_idx', ['dateCreated', 'uid'])
@Check('media_assets_files_check', `COALESCE(jsonb_typeof("files" -> 'default'), '') = 'object'`)
export class MediaAsset extends RecordEntity {
  @ApiProperty({ example: 'Iron sword artwork' })
  @Column({ type: 'text' })
  @Filterable()
  name: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Inventory icon and thumbnail of the iron sword.' })
  @Column({ type: 'text', nullable: true })
  @Filterable()
  description: string | null;

  @ApiProperty({
    type: 'object',
    description: 'The file variants by key; `default` is always present.',
    additionalProperties: { $ref: getSchemaPath(MediaFile) },
    example: {
      default: MEDIA_FILE_EXAMPLE,
      thumbnail: {
        ...MEDIA_FILE_EXAMPLE,
        mimetype: 'image/webp',
        name: 'sword-iron-64.webp',
        uri: 'https://cdn.example.com/items/sword-iron-64.webp',
        sha256sum: null,
        uid: '5d2e7a90-8f1b-4c6d-b3e2-7a4f9c0d1e22',
      },
    },
  })
  @Column({ type: 'jsonb' })
  files: Record<string, MediaFile>;

  /** The admin who created the asset. */
  @Column({ type: 'uuid', nullable: true })
  @ForeignKey(() => User, { name: 'media_assets_ownerUid_fkey', onDelete: 'SET NULL' })
  @ApiHideProperty()
  @Secret()
  ownerUid: string | null;
}
