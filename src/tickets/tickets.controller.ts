import { Body, Controller, Get, HttpCode } from '@nestjs/common';
import { Delete, Post, Put } from '../audit/audited-routes.js';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { AdminOnly } from '../common/policy.js';
import type { ListQuery } from '../common/list-query.js';
import type { CountDto } from '../common/record.dto.js';
import { CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { ApiErrors, ApiUidParam, IfMatch, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { recordUpdate } from '../common/versions.js';
import { CreateTicketDto } from './dto/create-ticket.dto.js';
import { QueueStatsDto } from './dto/queue-stats.dto.js';
import { UpdateTicketDto } from './dto/update-ticket.dto.js';
import { Ticket } from './ticket.entity.js';
import { TicketsService } from './tickets.service.js';

const TICKET_RULES =
  'Rules no schema states (a 400 names the field): the users fit on one team (at most teamSize) and none is listed twice; ' +
  'statistic names are distinct; each criterion names a statistic of this ticket, and its minValue and maxValue have ' +
  'the same type with minValue not above maxValue; numUsers, if sent, equals the number of users; expiresAt is in the ' +
  'future and within MATCHMAKER_TICKET_TTL.';

@ApiTags('tickets')
@ApiSecurity('jwt')
@ApiErrors(401)
@AuditedRecord(TicketsService)
@Controller('tickets')
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  @ListDocs(Ticket, 'List tickets', 'The tickets the caller hosts or is on (an admin sees all).')
  @Get()
  findAll(@ListQueryParam(Ticket) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Ticket[]> {
    return this.tickets.findAll(list, caller);
  }

  @FindDocs(Ticket, 'ticket')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Ticket> {
    return this.tickets.findOne(id, caller);
  }

  @CountDocs('Count tickets', 'The tickets the caller hosts or is on (an admin sees all).')
  @Get('count')
  async count(@ListQueryParam(Ticket) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.tickets.count(list, caller) };
  }

  /**
   * Queues the caller (or a party) for matchmaking. Once matched its status is MATCH_FOUND and
   * `sessionUid` names the session (pushed as `ticket.updated` over /realtime; or poll the ticket).
   * A player holds one queue place (MATCHMAKER_TICKETS_PER_USER): another ticket naming them is 409
   * ALREADY_QUEUED. A party waits INITIALIZING until every user it names has accepted. The ticket
   * expires at `expiresAt` (INVALID, reason EXPIRED).
   */
  @ApiOperation({ summary: 'Create a matchmaking ticket', description: TICKET_RULES })
  // What "Try it out" fills in: a ticket a player may send as it is. The schema's own sample would
  // list a made-up party member, and a player's ticket must include the player (400).
  @ApiBody({
    type: CreateTicketDto,
    examples: {
      solo: {
        summary: 'Queue yourself for a 1v1 within a skill range',
        value: {
          numTeams: 2,
          teamSize: 1,
          criteria: [{ name: 'skill', minValue: 1000, maxValue: 1400 }],
          statistics: [{ name: 'skill', value: 1200 }],
        },
      },
    },
  })
  @RecordResponse(Ticket, { status: 201 })
  @ApiErrors(400, [
    409,
    'ALREADY_QUEUED: a user the ticket names holds no free queue place (`userUid`; `ticketUid` when it is the caller).',
  ])
  @Post()
  create(@Body() body: CreateTicketDto, @CurrentCaller() caller: Caller): Promise<Ticket> {
    return this.tickets.create(body, caller);
  }

  @ApiOperation({ summary: 'Delete every ticket (admins)' })
  @ApiOkResponse({ description: 'All tickets removed; no body.' })
  @ApiErrors(403)
  @AdminOnly()
  @HttpCode(200)
  @Delete()
  async truncate(): Promise<void> {
    await this.tickets.truncate();
  }

  @ApiOperation({
    summary: 'Update a ticket (host or admin)',
    description: `${TICKET_RULES} They hold for the ticket as it is after the update.`,
  })
  @ApiUidParam('id', 'ticket')
  @RecordResponse(Ticket)
  @ApiErrors(400, 403, 404, [
    409,
    'VERSION_CONFLICT; CONFLICT: the ticket has been matched or has ended; ALREADY_QUEUED: a user added holds no free queue place.',
  ])
  @Put(':id')
  update(
    @UidParam() id: string,
    @Body() body: UpdateTicketDto,
    @CurrentCaller() caller: Caller,
    @IfMatch() ifMatch?: string,
  ): Promise<Ticket> {
    const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
    return this.tickets.update(id, fields, expectedVersion, caller);
  }

  @ApiOperation({
    summary: 'Queue insight',
    description:
      'SEARCHING tickets by numTeams and teamSize, for everyone; for admins also the median and 95th percentile wait of ' +
      'tickets matched in the last ten minutes and the matches per minute (also in /metrics).',
  })
  @ApiOkResponse({ type: QueueStatsDto })
  @Get('stats')
  stats(@CurrentCaller() caller: Caller): Promise<QueueStatsDto> {
    return this.tickets.stats(caller);
  }

  /** Idempotent. When every user the ticket names has accepted, it becomes SEARCHING. */
  @ApiOperation({ summary: 'Accept a party ticket (a user it names)' })
  @ApiUidParam('id', 'ticket')
  @RecordResponse(Ticket)
  @ApiErrors(400, [403, 'FORBIDDEN: the caller is not among the users the ticket names.'], 404, [
    409,
    'CONFLICT: the ticket has been matched, has ended or has expired.',
  ])
  @HttpCode(200)
  @Post(':id/accept')
  accept(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Ticket> {
    return this.tickets.accept(id, caller);
  }

  /** The ticket ends: INVALID with reason DECLINED (its other users are told). Idempotent. */
  @ApiOperation({ summary: 'Decline a party ticket (a user it names, not its host)' })
  @ApiUidParam('id', 'ticket')
  @RecordResponse(Ticket)
  @ApiErrors(400, [403, 'FORBIDDEN: the caller is not among the users the ticket names, or is its host.'], 404, [
    409,
    'CONFLICT: the ticket has been matched or has ended otherwise.',
  ])
  @HttpCode(200)
  @Post(':id/decline')
  decline(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Ticket> {
    return this.tickets.decline(id, caller);
  }

  @ApiOperation({ summary: 'Delete a ticket (host or admin)' })
  @ApiUidParam('id', 'ticket')
  @ApiOkResponse({ description: 'Deleted; no body.' })
  @ApiErrors(400, 403, 404)
  @HttpCode(200)
  @Delete(':id')
  async remove(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.tickets.remove(id, caller);
  }
}
