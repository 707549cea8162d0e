import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LedgerEntry } from './ledger-entry.entity.js';

/** Reads of the append-only ledger (TransactionsRepository.settle writes it). */
@Injectable()
export class LedgerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A persona's movements, newest first, older than the entry `before` when given (index inventory_ledger_personaUid_idx). */
  ofPersona(personaUid: string, limit: number, before: string | undefined): Promise<LedgerEntry[]> {
    const query = this.dataSource
      .createQueryBuilder(LedgerEntry, 'entry')
      .where('entry.personaUid = :personaUid', { personaUid })
      .orderBy('entry.sequence', 'DESC')
      .limit(limit);
    if (before !== undefined) query.andWhere('entry.sequence < :before', { before });
    return query.getMany();
  }
}
