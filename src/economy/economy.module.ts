import { Module } from '@nestjs/common';
import { ItemsModule } from '../items/items.module.js';
import { PersonasModule } from '../personas/personas.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { InventoriesController } from './inventories.controller.js';
import { InventoriesService } from './inventories.service.js';
import { InventoryRepository } from './inventory.repository.js';
import { LedgerRepository } from './ledger.repository.js';
import { TransactionProcessor } from './transaction-processor.js';
import { TransactionsController } from './transactions.controller.js';
import { TransactionsRepository } from './transactions.repository.js';
import { TransactionsService } from './transactions.service.js';

/**
 * The economy: inventories (what personas hold), transactions (trades, awards, removals) and the
 * ledger of every movement. Requests are handled by TransactionsService; TransactionProcessor moves
 * the quantities; the repositories own the SQL.
 */
@Module({
  imports: [PersonasModule, ItemsModule, StorageModule],
  controllers: [InventoriesController, TransactionsController],
  providers: [InventoriesService, InventoryRepository, LedgerRepository, TransactionsService, TransactionProcessor, TransactionsRepository],
  exports: [TransactionsService],
})
export class EconomyModule {}
