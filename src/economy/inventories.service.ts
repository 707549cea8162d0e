import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { RecordService } from '../database/record.service.js';
import { PersonasRepository } from '../personas/personas.repository.js';
import type { LedgerEntryDto } from './dto/ledger-entry.dto.js';
import { LedgerRepository } from './ledger.repository.js';
import type { InventoryItem } from './inventory-item.entity.js';
import { InventoryRepository } from './inventory.repository.js';

/** Inventories and the ledger are read-only here: they change through transactions only (TransactionProcessor). */
@Injectable()
export class InventoriesService extends RecordService<InventoryItem> {
  constructor(
    inventories: InventoryRepository,
    private readonly personas: PersonasRepository,
    private readonly ledger: LedgerRepository,
  ) {
    super(inventories);
  }

  /** A persona's ledger, for whoever may see the persona (its owner, admins; 404 otherwise). */
  async ledgerOf(personaUid: string, caller: Caller, limit: number, before: string | undefined): Promise<LedgerEntryDto[]> {
    await this.personas.findOne(personaUid, caller);
    return this.ledger.ofPersona(personaUid, limit, before);
  }
}
