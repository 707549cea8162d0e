import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository } from '../common/record.repository.js';
import { TextAsset } from './text-asset.entity.js';

@Injectable()
export class TextAssetsRepository extends RecordRepository<TextAsset> {
  constructor(dataSource: DataSource) {
    super(dataSource, TextAsset, 'text asset');
  }
}
