import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/admin.guard.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, ApiListQuery, ApiUidParam, IfMatch, ListQueryParam, UidParam } from '../common/route.decorators.js';
import { expectedVersion } from '../common/versions.js';
import { CreateTicketDto } from './dto/create-ticket.dto.js';
import { UpdateTicketDto } from './dto/update-ticket.dto.js';
import { Ticket } from './ticket.entity.js';
import { TICKET_FIELDS, TicketsService } from './tickets.service.js';

@ApiTags('tickets')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('tickets')
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  /** The tickets the caller hosts or is on. */
  @ApiOperation({ summary: 'List tickets' })
  @ApiListQuery(TICKET_FIELDS)
  @ApiOkResponse({ type: [Ticket] })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(TICKET_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Ticket[]> {
    return this.tickets.findAll(list, caller);
  }

  /**
   * Queues the caller (or a party) for matchmaking. Poll the ticket: once matched its status is
   * MATCH_FOUND and `sessionUid` names the session.
   */
  @ApiOperation({ summary: 'Create a matchmaking ticket' })
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
  @ApiCreatedResponse({ type: Ticket })
  @ApiErrors(400)
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

  @ApiOperation({ summary: 'Count tickets' })
  @ApiListQuery(TICKET_FIELDS)
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400)
  @Get('count')
  async count(@ListQueryParam(TICKET_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.tickets.count(list, caller) };
  }

  @ApiOperation({ summary: 'Find a ticket by id' })
  @ApiUidParam('id', 'ticket')
  @ApiOkResponse({ type: Ticket, description: 'The ticket, with `ETag: "<version>"`.' })
  @ApiErrors(400, 404)
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Ticket> {
    return this.tickets.findOne(id, caller);
  }

  @ApiOperation({ summary: 'Update a ticket (host or admin)' })
  @ApiUidParam('id', 'ticket')
  @ApiOkResponse({ type: Ticket })
  @ApiErrors(400, 403, 404, [409, 'VERSION_CONFLICT, or CONFLICT: the ticket has been matched already.'])
  @Put(':id')
  update(
    @UidParam() id: string,
    @Body() body: UpdateTicketDto,
    @CurrentCaller() caller: Caller,
    @IfMatch() ifMatch?: string,
  ): Promise<Ticket> {
    return this.tickets.update(id, body, expectedVersion(body.version, ifMatch), caller);
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
