import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, type Repository, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { assertHostOrAdmin, badRequest, conflict, ErrorCode } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { writableFields } from '../common/record.dto.js';
import { column, RecordService } from '../common/record.service.js';
import type { CreateTicketDto } from './dto/create-ticket.dto.js';
import type { UpdateTicketDto } from './dto/update-ticket.dto.js';
import { checkTicket } from './ticket-rules.js';
import { Ticket, TICKET_STATUSES } from './ticket.entity.js';

export const TICKET_FIELDS = {
  ...COMMON_FIELDS,
  status: { enum: TICKET_STATUSES },
  numTeams: 'integer',
  teamSize: 'integer',
  numUsers: 'integer',
  hostUid: 'uuid',
  sessionUid: 'uuid',
} as const satisfies QueryableFields;

@Injectable()
export class TicketsService extends RecordService<Ticket> {
  protected readonly recordName = 'ticket';

  constructor(
    @InjectRepository(Ticket) repository: Repository<Ticket>,
    private readonly dataSource: DataSource,
  ) {
    super(repository);
  }

  /** A ticket is its host's and its users' (and the admins'). */
  protected override scope(query: SelectQueryBuilder<Ticket>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(`(${column('hostUid')} = :viewer OR ${column('users')} @> ARRAY[:viewer]::uuid[])`, {
      viewer: caller?.uid ?? null,
    });
  }

  async create(body: CreateTicketDto, caller: Caller): Promise<Ticket> {
    const { numUsers, ...fields } = writableFields(body);
    const ticket = {
      ...fields,
      teamSize: fields.teamSize ?? 1,
      users: fields.users ?? [caller.uid],
      criteria: fields.criteria ?? [],
      statistics: fields.statistics ?? [],
    };
    checkParty(ticket.users, numUsers, caller);
    checkTicket(ticket);
    const [row] = (
      await this.repository
        .createQueryBuilder()
        .insert()
        .values({ ...ticket, numUsers: ticket.users.length, hostUid: caller.uid })
        .returning('*')
        .execute()
    ).raw as Ticket[];
    return this.repository.create(row);
  }

  async update(uid: string, body: UpdateTicketDto, expectedVersion: number | undefined, caller: Caller): Promise<Ticket> {
    if (body.uid !== undefined && body.uid !== uid) {
      throw badRequest(`uid ${body.uid} in the body does not match the path`, [{ field: 'uid', message: 'does not match the path' }]);
    }
    const { numUsers, ...fields } = writableFields(body);
    return this.dataSource.transaction(async (manager) => {
      // Locked, so that the matchmaker cannot match the ticket between this check and the write.
      const current = await this.lockOne(manager, uid, caller);
      assertHostOrAdmin(current, caller, 'ticket');
      if (current.status === 'MATCH_FOUND') {
        throw conflict(ErrorCode.CONFLICT, `ticket ${uid} has been matched into session ${current.sessionUid}`);
      }
      const merged = { ...current, ...fields };
      checkParty(merged.users, numUsers, caller, current.hostUid);
      checkTicket(merged);
      return this.updateVersioned(uid, { ...fields, numUsers: merged.users.length }, expectedVersion, manager);
    });
  }

  async remove(uid: string, caller: Caller): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      assertHostOrAdmin(await this.lockOne(manager, uid, caller), caller, 'ticket');
      await this.deleteOne(uid, manager);
    });
  }
}

/**
 * `numUsers` must agree with `users` when sent; a player's ticket must include its host, so that
 * nobody queues a party of strangers without being in it (admins and servers may).
 */
function checkParty(users: string[], numUsers: number | undefined, caller: Caller, hostUid = caller.uid): void {
  if (numUsers !== undefined && numUsers !== users.length) {
    throw badRequest(`numUsers ${numUsers} does not match the ${users.length} users`, [
      { field: 'numUsers', message: 'must equal the number of users' },
    ]);
  }
  if (!caller.isAdmin && !users.includes(hostUid)) {
    throw badRequest('the ticket must include its host among its users', [{ field: 'users', message: 'must include the host' }]);
  }
}
