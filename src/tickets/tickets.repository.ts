import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { ALIAS, column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import { Ticket } from './ticket.entity.js';

@Injectable()
export class TicketsRepository extends RecordRepository<Ticket> {
  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, Ticket, 'ticket');
  }

  /** A ticket's changes (its status above all) are pushed to its host and users. */
  protected override async afterUpdate(transaction: Transaction, ticket: Ticket): Promise<void> {
    await this.outbox.record(transaction, 'ticket.updated', ticket, { users: [ticket.hostUid, ...ticket.users] });
  }

  /** A ticket is its host's and its users' (and the admins'). */
  protected override scope(query: SelectQueryBuilder<Ticket>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(`(${column('hostUid')} = :viewer OR ${column('users')} @> ARRAY[:viewer]::uuid[])`, {
      viewer: caller?.uid ?? null,
    });
  }

  /**
   * The oldest SEARCHING tickets, locked until the transaction ends. `SKIP LOCKED`: tickets another
   * instance is matching, or a client is updating, are left out of this pass, never matched twice.
   */
  claimSearching(transaction: Transaction, limit: number): Promise<Ticket[]> {
    return transaction
      .createQueryBuilder(Ticket, ALIAS)
      .where(`${column('status')} = 'SEARCHING'`)
      .orderBy(column('dateCreated'), 'ASC')
      .addOrderBy(column('uid'), 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  /** The tickets found their session: MATCH_FOUND, with its uid (and each ticket's people are told). */
  async markMatched(transaction: Transaction, ticketUids: string[], sessionUid: string): Promise<void> {
    const result = await transaction
      .createQueryBuilder()
      .update(Ticket)
      .set({ status: 'MATCH_FOUND', sessionUid, version: () => 'version + 1', dateModified: () => 'now()' })
      .whereInIds(ticketUids)
      .returning('*')
      .execute();
    for (const row of result.raw as Ticket[]) await this.afterUpdate(transaction, transaction.create(Ticket, row));
  }
}
