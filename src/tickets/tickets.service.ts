import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest, conflict, ErrorCode } from '../common/errors.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../common/record.service.js';
import type { CreateTicketDto } from './dto/create-ticket.dto.js';
import type { UpdateTicketDto } from './dto/update-ticket.dto.js';
import { checkTicket } from './ticket-rules.js';
import type { Ticket } from './ticket.entity.js';
import { requireHostInParty, requireMayChangeTicket } from './tickets.policy.js';
import { TicketsRepository } from './tickets.repository.js';

@Injectable()
export class TicketsService extends RecordService<Ticket> {
  constructor(private readonly tickets: TicketsRepository) {
    super(tickets);
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
    checkNumUsers(ticket.users, numUsers);
    requireHostInParty(caller, ticket.users);
    checkTicket(ticket);
    return this.tickets.insert({ ...ticket, numUsers: ticket.users.length, hostUid: caller.uid });
  }

  async update(uid: string, body: WritableFields<UpdateTicketDto>, expectedVersion: number | undefined, caller: Caller): Promise<Ticket> {
    const { numUsers, ...fields } = body;
    return this.tickets.transaction(async (transaction) => {
      // Locked, so that the matchmaker cannot match the ticket between this check and the write.
      const current = await this.tickets.lockOne(transaction, uid, caller);
      requireMayChangeTicket(caller, current);
      if (current.status === 'MATCH_FOUND') {
        throw conflict(ErrorCode.CONFLICT, `ticket ${uid} has been matched into session ${current.sessionUid}`);
      }
      const merged = { ...current, ...fields };
      checkNumUsers(merged.users, numUsers);
      requireHostInParty(caller, merged.users, current.hostUid);
      checkTicket(merged);
      return this.tickets.updateVersioned(uid, { ...fields, numUsers: merged.users.length }, expectedVersion, transaction);
    });
  }

  async remove(uid: string, caller: Caller): Promise<void> {
    await this.tickets.transaction(async (transaction) => {
      requireMayChangeTicket(caller, await this.tickets.lockOne(transaction, uid, caller));
      await this.tickets.deleteOne(uid, transaction);
    });
  }
}

/** `numUsers`, when sent, must agree with `users`. */
function checkNumUsers(users: string[], numUsers: number | undefined): void {
  if (numUsers !== undefined && numUsers !== users.length) {
    throw badRequest(`numUsers ${numUsers} does not match the ${users.length} users`, [
      { field: 'numUsers', message: 'must equal the number of users' },
    ]);
  }
}
