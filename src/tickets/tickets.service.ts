import { HttpStatus, Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { UsersRepository } from '../auth/users/users.repository.js';
import { ApiException, badRequest, conflict, ErrorCode, unknownUsers } from '../common/errors.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import type { Transaction } from '../database/record.repository.js';
import { RecordService } from '../database/record.service.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import type { CreateTicketDto } from './dto/create-ticket.dto.js';
import type { QueueStatsDto } from './dto/queue-stats.dto.js';
import type { UpdateTicketDto } from './dto/update-ticket.dto.js';
import { checkTicket, partyState, queueConflict } from './ticket-rules.js';
import { QUEUED_TICKET_STATUSES, type Ticket, type TicketStatus } from './ticket.entity.js';
import { requireHostInParty, requireMayAnswerTicket, requireMayChangeTicket } from './tickets.policy.js';
import { TicketsRepository } from './tickets.repository.js';

/** How far back GET /tickets/stats looks at matched tickets. */
const STATS_WINDOW_SECONDS = 600;

const isQueued = (status: TicketStatus) => (QUEUED_TICKET_STATUSES as readonly string[]).includes(status);

@Injectable()
export class TicketsService extends RecordService<Ticket> {
  private readonly config: AppConfig['matchmaker'];

  constructor(
    private readonly tickets: TicketsRepository,
    private readonly users: UsersRepository,
    @InjectConfig() config: AppConfig,
  ) {
    super(tickets);
    this.config = config.matchmaker;
  }

  async create(body: CreateTicketDto, caller: Caller): Promise<Ticket> {
    const { numUsers, expiresAt, ...fields } = writableFields(body);
    const ticket = {
      ...fields,
      numTeams: body.numTeams,
      teamSize: fields.teamSize ?? 1,
      users: fields.users ?? [caller.uid],
      criteria: fields.criteria ?? [],
      statistics: fields.statistics ?? [],
    };
    checkNumUsers(ticket.users, numUsers);
    requireHostInParty(caller, ticket.users);
    checkTicket(ticket);
    await this.requireUsersExist(ticket.users);
    const party = partyState({
      users: ticket.users,
      hostUid: caller.uid,
      accepted: [],
      status: fields.status ?? 'SEARCHING',
      trusted: caller.isAdmin,
    });
    return this.tickets.transaction(async (transaction) => {
      if (isQueued(party.status)) await this.requireQueuePlaces(transaction, ticket.users, caller);
      return this.tickets.insert(
        {
          ...ticket,
          ...party,
          reason: party.status === 'INVALID' ? 'CANCELED' : null,
          expiresAt: this.expiry(expiresAt),
          numUsers: ticket.users.length,
          hostUid: caller.uid,
        },
        transaction,
      );
    });
  }

  async update(uid: string, body: WritableFields<UpdateTicketDto>, expectedVersion: number | undefined, caller: Caller): Promise<Ticket> {
    const { numUsers, expiresAt, ...fields } = body;
    return this.tickets.transaction(async (transaction) => {
      // Locked, so that the matchmaker cannot match the ticket between this check and the write.
      const current = await this.tickets.lockOne(transaction, uid, caller);
      requireMayChangeTicket(caller, current);
      requireQueued(current);
      const merged = { ...current, ...fields };
      checkNumUsers(merged.users, numUsers);
      requireHostInParty(caller, merged.users, current.hostUid);
      checkTicket(merged);
      const party = partyState({
        users: merged.users,
        hostUid: current.hostUid,
        accepted: current.accepted,
        status: merged.status,
        trusted: caller.isAdmin,
      });
      const joining = merged.users.filter((user) => !current.users.includes(user));
      await this.requireUsersExist(joining);
      if (isQueued(party.status)) await this.requireQueuePlaces(transaction, joining, caller, uid);
      return this.tickets.updateVersioned(
        uid,
        {
          ...fields,
          ...party,
          ...(party.status === 'INVALID' && { reason: 'CANCELED' as const }),
          ...(expiresAt !== undefined && { expiresAt: this.expiry(expiresAt) }),
          numUsers: merged.users.length,
        },
        expectedVersion,
        transaction,
      );
    });
  }

  async remove(uid: string, caller: Caller): Promise<void> {
    await this.tickets.transaction(async (transaction) => {
      requireMayChangeTicket(caller, await this.tickets.lockOne(transaction, uid, caller));
      await this.tickets.deleteOne(uid, transaction);
    });
  }

  /** A user the ticket names agrees to play in its party; when the last one has, it starts SEARCHING. Idempotent. */
  async accept(uid: string, caller: Caller): Promise<Ticket> {
    return this.tickets.transaction(async (transaction) => {
      const ticket = await this.tickets.lockOne(transaction, uid, caller);
      requireMayAnswerTicket(caller, ticket);
      requireQueued(ticket);
      if (ticket.expiresAt.getTime() <= Date.now()) throw conflict(ErrorCode.CONFLICT, `ticket ${uid} has expired`);
      if (ticket.accepted.includes(caller.uid)) return ticket;
      const party = partyState({ ...ticket, accepted: [...ticket.accepted, caller.uid], trusted: false });
      const everyone = party.accepted.length === ticket.users.length;
      return this.tickets.updateVersioned(
        uid,
        { accepted: party.accepted, ...(everyone && ticket.status === 'INITIALIZING' && { status: 'SEARCHING' as const }) },
        undefined,
        transaction,
      );
    });
  }

  /** A user the ticket names refuses its party: the ticket ends (INVALID, reason DECLINED). Idempotent. */
  async decline(uid: string, caller: Caller): Promise<Ticket> {
    return this.tickets.transaction(async (transaction) => {
      const ticket = await this.tickets.lockOne(transaction, uid, caller);
      requireMayAnswerTicket(caller, ticket, { decline: true });
      if (ticket.status === 'INVALID' && ticket.reason === 'DECLINED') return ticket;
      requireQueued(ticket);
      return this.tickets.updateVersioned(uid, { status: 'INVALID', reason: 'DECLINED' }, undefined, transaction);
    });
  }

  /** The queue's depth for everyone; how long matched players waited and how often matches are made, for admins. */
  async stats(caller: Caller): Promise<QueueStatsDto> {
    if (!caller.isAdmin) return { searching: await this.tickets.queueDepth() };
    const { searching, matched, sessions, medianWaitSeconds, p95WaitSeconds } = await this.tickets.figures(STATS_WINDOW_SECONDS);
    return {
      searching,
      windowSeconds: STATS_WINDOW_SECONDS,
      matchedTickets: matched,
      medianWaitSeconds,
      p95WaitSeconds,
      matchesPerMinute: sessions / (STATS_WINDOW_SECONDS / 60),
    };
  }

  /**
   * One queue place per player (MATCHMAKER_TICKETS_PER_USER): the users' rows are locked, then their
   * queued tickets counted, so that of two tickets queueing one player at once exactly one succeeds.
   */
  private async requireQueuePlaces(transaction: Transaction, users: string[], caller: Caller, except?: string): Promise<void> {
    if (users.length === 0) return;
    await this.tickets.lockUsers(transaction, users);
    const queued = await this.tickets.queuedOn(transaction, users, except);
    const taken = queueConflict(users, queued, this.config.ticketsPerUser);
    if (!taken) return;
    const own = taken.userUid === caller.uid;
    throw new ApiException(
      HttpStatus.CONFLICT,
      ErrorCode.ALREADY_QUEUED,
      own
        ? `you are already queued on ticket ${taken.ticketUid}: delete it, or set it INVALID, to queue again`
        : `user ${taken.userUid} is already queued on another ticket`,
      { userUid: taken.userUid, ...(own && { ticketUid: taken.ticketUid }) },
    );
  }

  /** Every user a ticket names must exist (400 naming those that do not). */
  private async requireUsersExist(uids: string[]): Promise<void> {
    const unknown = await this.users.unknownUids(uids);
    if (unknown.length > 0) throw unknownUsers(unknown);
  }

  /** When a ticket expires: as asked (in the future, at most MATCHMAKER_TICKET_TTL away), else the full TTL. */
  private expiry(asked: string | undefined): Date {
    const latest = Date.now() + this.config.ticketTtlSeconds * 1000;
    if (asked === undefined) return new Date(latest);
    const at = new Date(asked).getTime();
    if (!(at > Date.now()) || at > latest) {
      throw badRequest(`expiresAt must be in the future and at most ${this.config.ticketTtlSeconds} s away`, [
        { field: 'expiresAt', message: `must be within the next ${this.config.ticketTtlSeconds} s` },
      ]);
    }
    return new Date(at);
  }
}

/** A ticket that was matched or ended stays as it is: queue again with a new ticket. */
function requireQueued(ticket: Ticket): void {
  if (ticket.status === 'MATCH_FOUND') {
    throw conflict(ErrorCode.CONFLICT, `ticket ${ticket.uid} has been matched into session ${ticket.sessionUid}`);
  }
  if (ticket.status === 'INVALID') {
    throw conflict(ErrorCode.CONFLICT, `ticket ${ticket.uid} has ended (${ticket.reason ?? 'INVALID'}): queue again with a new ticket`);
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
