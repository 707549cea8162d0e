import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { writableFields } from '../common/record.dto.js';
import { RecordService } from '../common/record.service.js';
import type { CreateMediaAssetDto } from './dto/create-media-asset.dto.js';
import type { MediaFileDto } from './dto/media-file.dto.js';
import type { UpdateMediaAssetDto } from './dto/update-media-asset.dto.js';
import { MediaAsset } from './media-asset.entity.js';
import { type MediaFileContent, mediaFileContent, stampMediaFiles } from './media-files.js';

/** Filterable and sortable fields: the scalar ones (not the `files` map). */
export const MEDIA_ASSET_FIELDS = {
  ...COMMON_FIELDS,
  name: 'string',
  description: 'string',
} as const satisfies QueryableFields;

/**
 * The database's clock, as the record's own dates will read it: `now()` is fixed for a transaction, and
 * the columns keep milliseconds. File dates then equal the asset's dates of the same write.
 */
async function transactionTime(manager: EntityManager): Promise<string> {
  const [{ now }] = (await manager.query('SELECT now()::timestamptz(3) AS now')) as Array<{ now: Date }>;
  return now.toISOString();
}

function contents(files: Map<string, MediaFileDto>): Array<[string, MediaFileContent]> {
  return [...files].map(([key, file]) => [key, mediaFileContent(file)]);
}

/** Media assets: catalog data, readable by every signed-in user, written by admins (the controller checks). */
@Injectable()
export class MediaAssetsService extends RecordService<MediaAsset> {
  protected readonly recordName = 'media asset';

  constructor(
    @InjectRepository(MediaAsset) repository: Repository<MediaAsset>,
    private readonly dataSource: DataSource,
  ) {
    super(repository);
  }

  create(body: CreateMediaAssetDto, caller: Caller): Promise<MediaAsset> {
    const { files, ...fields } = writableFields(body);
    return this.dataSource.transaction(async (manager) => {
      const stamped = stampMediaFiles(contents(files!), undefined, await transactionTime(manager));
      const [row] = (
        await manager
          .createQueryBuilder()
          .insert()
          .into(MediaAsset)
          .values({ ...fields, files: stamped, ownerUid: caller.uid })
          .returning('*')
          .execute()
      ).raw as MediaAsset[];
      return this.repository.create(row);
    });
  }

  /**
   * Merges the given fields. A new `files` map is stamped against the stored one (see stampMediaFiles)
   * under a row lock, so that two concurrent updates cannot both build on the same old map.
   */
  async update(uid: string, body: UpdateMediaAssetDto, expectedVersion: number | undefined): Promise<MediaAsset> {
    if (body.uid !== undefined && body.uid !== uid) {
      throw badRequest(`uid ${body.uid} in the body does not match the path`, [{ field: 'uid', message: 'does not match the path' }]);
    }
    const { files, ...fields } = writableFields(body);
    if (files === undefined) return this.updateVersioned(uid, fields, expectedVersion);
    return this.dataSource.transaction(async (manager) => {
      const current = await this.lockOne(manager, uid, undefined);
      const stamped = stampMediaFiles(contents(files), current.files, await transactionTime(manager));
      return this.updateVersioned(uid, { ...fields, files: stamped } as QueryDeepPartialEntity<MediaAsset>, expectedVersion, manager);
    });
  }

  remove(uid: string): Promise<void> {
    return this.deleteOne(uid);
  }
}
