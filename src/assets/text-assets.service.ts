import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../database/record.service.js';
import type { CreateTextAssetDto } from './dto/create-text-asset.dto.js';
import type { UpdateTextAssetDto } from './dto/update-text-asset.dto.js';
import type { TextAsset } from './text-asset.entity.js';
import { TextAssetsRepository } from './text-assets.repository.js';
import { type ResolvedText, resolveText } from './text-language.js';

/** Text assets: catalog data, readable by every signed-in user, written by admins (the controller checks). */
@Injectable()
export class TextAssetsService extends RecordService<TextAsset> {
  constructor(private readonly assets: TextAssetsRepository) {
    super(assets);
  }

  create(body: CreateTextAssetDto, caller: Caller): Promise<TextAsset> {
    return this.assets.insert({ ...writableFields(body), ownerUid: caller.uid });
  }

  update(uid: string, fields: WritableFields<UpdateTextAssetDto>, expectedVersion: number | undefined): Promise<TextAsset> {
    return this.assets.updateVersioned(uid, fields, expectedVersion);
  }

  remove(uid: string): Promise<void> {
    return this.assets.deleteOne(uid);
  }

  /** The asset's text in the first of `preferences` it has (or a shorter form of it), else the default. */
  async resolve(uid: string, preferences: readonly string[], caller: Caller): Promise<ResolvedText> {
    const asset = await this.findOne(uid, caller);
    return resolveText(asset.text, preferences);
  }
}
