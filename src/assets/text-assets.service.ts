import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { writableFields } from '../common/record.dto.js';
import { RecordService } from '../common/record.service.js';
import type { CreateTextAssetDto } from './dto/create-text-asset.dto.js';
import type { UpdateTextAssetDto } from './dto/update-text-asset.dto.js';
import { TextAsset } from './text-asset.entity.js';
import { type ResolvedText, resolveText } from './text-language.js';

/** Filterable and sortable fields: the scalar ones (not the `text` map). */
export const TEXT_ASSET_FIELDS = {
  ...COMMON_FIELDS,
  name: 'string',
  description: 'string',
} as const satisfies QueryableFields;

/** Text assets: catalog data, readable by every signed-in user, written by admins (the controller checks). */
@Injectable()
export class TextAssetsService extends RecordService<TextAsset> {
  protected readonly recordName = 'text asset';

  constructor(@InjectRepository(TextAsset) repository: Repository<TextAsset>) {
    super(repository);
  }

  async create(body: CreateTextAssetDto, caller: Caller): Promise<TextAsset> {
    const [row] = (
      await this.repository
        .createQueryBuilder()
        .insert()
        .values({ ...writableFields(body), ownerUid: caller.uid })
        .returning('*')
        .execute()
    ).raw as TextAsset[];
    return this.repository.create(row);
  }

  update(uid: string, body: UpdateTextAssetDto, expectedVersion: number | undefined): Promise<TextAsset> {
    if (body.uid !== undefined && body.uid !== uid) {
      throw badRequest(`uid ${body.uid} in the body does not match the path`, [{ field: 'uid', message: 'does not match the path' }]);
    }
    return this.updateVersioned(uid, writableFields(body), expectedVersion);
  }

  remove(uid: string): Promise<void> {
    return this.deleteOne(uid);
  }

  /** The asset's text in the first of `preferences` it has (or a shorter form of it), else the default. */
  async resolve(uid: string, preferences: readonly string[], caller: Caller): Promise<ResolvedText> {
    const asset = await this.findOne(uid, caller);
    return resolveText(asset.text, preferences);
  }
}
