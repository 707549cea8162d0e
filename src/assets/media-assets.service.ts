import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { MediaBlobsRepository } from '../media/media-blobs.repository.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../database/record.service.js';
import type { CreateMediaAssetDto } from './dto/create-media-asset.dto.js';
import type { MediaFileDto } from './dto/media-file.dto.js';
import type { UpdateMediaAssetDto } from './dto/update-media-asset.dto.js';
import type { MediaAsset } from './media-asset.entity.js';
import { MediaAssetsRepository } from './media-assets.repository.js';
import {
  borrowedStoreUris,
  type MediaFileContent,
  mediaFileContent,
  stampMediaFiles,
  storedVariants,
  type StoredMediaFiles,
} from '../media/media-files.js';

function contents(files: Map<string, MediaFileDto>): Array<[string, MediaFileContent]> {
  return [...files].map(([key, file]) => [key, mediaFileContent(file)]);
}

/** Media assets: catalog data, readable by every signed-in user, written by admins (the controller checks). */
@Injectable()
export class MediaAssetsService extends RecordService<MediaAsset> {
  private readonly mediaBaseUrl: string;

  constructor(
    private readonly assets: MediaAssetsRepository,
    private readonly blobs: MediaBlobsRepository,
    @InjectConfig() config: AppConfig,
  ) {
    super(assets);
    this.mediaBaseUrl = config.media.baseUrl;
  }

  create(body: CreateMediaAssetDto, caller: Caller): Promise<MediaAsset> {
    const { files, ...fields } = writableFields(body);
    return this.assets.transaction(async (transaction) => {
      const stamped = stampMediaFiles(contents(files!), undefined, await this.assets.transactionTime(transaction));
      this.refuseBorrowedUris(stamped);
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
      this.refuseBorrowedUris(stamped);
      const updated = await this.assets.updateVersioned(uid, { ...fields, files: stamped }, expectedVersion, transaction);
      // A variant replaced by an external file, or left out, no longer keeps its bytes from the sweep.
      await this.blobs.keepReferences(transaction, uid, storedVariants(updated.files));
      return updated;
    });
  }

  /** A uri of the media store is made by an upload: written by hand, its bytes would be swept away. */
  private refuseBorrowedUris(files: StoredMediaFiles): void {
    const borrowed = borrowedStoreUris(files, this.mediaBaseUrl);
    if (borrowed.length > 0) {
      throw badRequest(
        `the uri of ${borrowed.join(', ')} points into this service's media store: upload the file with PUT /assets/media/{id}/files/{variant}`,
        borrowed.map((key) => ({ field: `files.${key}.uri`, message: 'is a media store URL: upload the file instead' })),
      );
    }
  }

  remove(uid: string): Promise<void> {
    return this.assets.deleteOne(uid);
  }
}
