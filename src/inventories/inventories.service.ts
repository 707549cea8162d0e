import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository, SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { column, RecordService } from '../common/record.service.js';
import { InventoryItem } from './inventory-item.entity.js';

export const INVENTORY_FIELDS = {
  ...COMMON_FIELDS,
  personaUid: 'uuid',
  itemUid: 'uuid',
  quantity: 'integer',
} as const satisfies QueryableFields;

/** Read-only: inventories change through transactions only. */
@Injectable()
export class InventoriesService extends RecordService<InventoryItem> {
  protected readonly recordName = 'inventory item';

  constructor(@InjectRepository(InventoryItem) repository: Repository<InventoryItem>) {
    super(repository);
  }

  /** A persona's inventory is its owner's (and the admins'). */
  protected override scope(query: SelectQueryBuilder<InventoryItem>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(`${column('personaUid')} IN (SELECT uid FROM personas WHERE "userUid" = :viewer)`, {
      viewer: caller?.uid ?? null,
    });
  }
}
