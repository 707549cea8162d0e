import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository } from '../database/record.repository.js';
import { TextAsset } from './text-asset.entity.js';
import { Replicas } from '../database/replicas.js';

@Injectable()
export class TextAssetsRepository extends RecordRepository<TextAsset> {
  constructor(dataSource: DataSource, replicas: Replicas) {
    super(dataSource, TextAsset, 'text asset', replicas);
  }
}
