import { Body, Controller, Delete, HttpCode, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { AdminOnly } from '../common/policy.js';
import { RecordController } from '../common/record.controller.js';
import { ApiErrors, ApiUidParam, IfMatch, RecordResponse, UidParam } from '../common/route.decorators.js';
import { recordUpdate } from '../common/versions.js';
import { CreateTicketDto } from './dto/create-ticket.dto.js';
import { UpdateTicketDto } from './dto/update-ticket.dto.js';
import { Ticket } from './ticket.entity.js';
import { TicketsService } from './tickets.service.js';

@ApiTags('tickets')
@Controller('tickets')
export class TicketsController extends RecordController({
  entity: Ticket,
  name: 'ticket',
  plural: 'tickets',
  listDescription: 'The tickets the caller hosts or is on (an admin sees all).',
}) {
  constructor(private readonly tickets: TicketsService) {
    super(tickets);
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
  @RecordResponse(Ticket, { status: 201 })
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

  @ApiOperation({ summary: 'Update a ticket (host or admin)' })
  @ApiUidParam('id', 'ticket')
  @RecordResponse(Ticket)
  @ApiErrors(400, 403, 404, [409, 'VERSION_CONFLICT, or CONFLICT: the ticket has been matched already.'])
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
