import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../common/record.service.js';
import type { CreateMediaAssetDto } from './dto/create-media-asset.dto.js';
import type { MediaFileDto } from './dto/media-file.dto.js';
import type { UpdateMediaAssetDto } from './dto/update-media-asset.dto.js';
import type { MediaAsset } from './media-asset.entity.js';
import { MediaAssetsRepository } from './media-assets.repository.js';
import { type MediaFileContent, mediaFileContent, stampMediaFiles } from './media-files.js';

function contents(files: Map<string, MediaFileDto>): Array<[string, MediaFileContent]> {
  return [...files].map(([key, file]) => [key, mediaFileContent(file)]);
}

/** Media assets: catalog data, readable by every signed-in user, written by admins (the controller checks). */
@Injectable()
export class MediaAssetsService extends RecordService<MediaAsset> {
  constructor(private readonly assets: MediaAssetsRepository) {
    super(assets);
  }

  create(body: CreateMediaAssetDto, caller: Caller): Promise<MediaAsset> {
    const { files, ...fields } = writableFields(body);
    return this.assets.transaction(async (transaction) => {
      const stamped = stampMediaFiles(contents(files!), undefined, await this.assets.transactionTime(transaction));
      return this.assets.insert({ ...fields, files: stamped, ownerUid: caller.uid }, transaction);
    });
  }

  /**
   * Merges the given fields. A new `files` map is stamped against the stored one (see stampMediaFiles)
   * under a row lock, so that two concurrent updates cannot both build on the same old map.
   */
  update(uid: string, body: WritableFields<UpdateMediaAssetDto>, expectedVersion: number | undefined): Promise<MediaAsset> {
    const { files, ...fields } = body;
    if (files === undefined) return this.assets.updateVersioned(uid, fields, expectedVersion);
    return this.assets.transaction(async (transaction) => {
      const current = await this.assets.lockOne(transaction, uid, undefined);
      const stamped = stampMediaFiles(contents(files), current.files, await this.assets.transactionTime(transaction));
      return this.assets.updateVersioned(uid, { ...fields, files: stamped }, expectedVersion, transaction);
    });
  }

  remove(uid: string): Promise<void> {
    return this.assets.deleteOne(uid);
  }
}
