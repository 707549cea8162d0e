import { Injectable } from '@nestjs/common';
import { RecordService } from '../common/record.service.js';
import type { InventoryItem } from './inventory-item.entity.js';
import { InventoryRepository } from './inventory.repository.js';

/** Inventories are read-only here: they change through transactions only (TransactionProcessor). */
@Injectable()
export class InventoriesService extends RecordService<InventoryItem> {
  constructor(inventories: InventoryRepository) {
    super(inventories);
  }
}
