import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { ALIAS, column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import { Session } from './session.entity.js';

@Injectable()
export class SessionsRepository extends RecordRepository<Session> {
  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, Session, 'session');
  }

  /** Every change (join, leave, host, status, visibility, roster) is pushed to the host, members and invited users. */
  protected override async afterUpdate(transaction: Transaction, session: Session): Promise<void> {
    await this.outbox.record(transaction, 'session.updated', session, { users: audienceOf(session) });
  }

  protected override async afterDelete(transaction: Transaction, session: Session): Promise<void> {
    await this.outbox.record(transaction, 'session.deleted', session, { users: audienceOf(session) });
  }

  /** PUBLIC sessions to everyone signed in; the others to their host, members and invited users; all to admins. */
  protected override scope(query: SelectQueryBuilder<Session>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(
      `(${column('visibility')} = 'PUBLIC' OR ${column('hostUid')} = :viewer
        OR ${column('users')} @> ARRAY[:viewer]::uuid[] OR ${column('invited')} @> ARRAY[:viewer]::uuid[])`,
      { viewer: caller?.uid ?? null },
    );
  }

  /**
   * The session, whoever may see it, locked until the transaction ends: joining an INVITE_ONLY or
   * LOCKED session is a 403 (docs/CONTRACT.md section 7), so the join decides on the record, not on scope.
   */
  async lockForJoin(transaction: Transaction, uid: string): Promise<Session | null> {
    return transaction
      .createQueryBuilder(Session, ALIAS)
      .where(`${column('uid')} = :uid`, { uid })
      .setLock('pessimistic_write')
      .getOne();
  }
}

/** Who follows a session: its host, members and invited users. */
const audienceOf = (session: Session) => [session.hostUid, ...session.users, ...session.invited];
