import { Controller, Get, HttpCode, Query } from '@nestjs/common';
import { Post } from '../audit/audited-routes.js';
import { ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { ApiErrors } from '../common/route.decorators.js';
import { InboxQuery } from '../realtime/dto/inbox-query.js';
import type { EventFrame } from '../realtime/notifications.repository.js';
import { RealtimeService } from '../realtime/realtime.service.js';
import { EVENT_SCHEMAS, RealtimeTicketDto } from './event.dto.js';

/**
 * The REST side of realtime: tickets that open a socket from a browser, and the inbox for clients
 * without a socket (docs/REALTIME.md).
 */
@ApiTags('realtime')
@ApiSecurity('jwt')
@ApiErrors(401)
@ApiExtraModels(...EVENT_SCHEMAS)
@Controller()
export class RealtimeController {
  constructor(private readonly realtime: RealtimeService) {}

  @ApiOperation({
    summary: 'Get a ticket to open the realtime socket (browsers)',
    description:
      'Browsers cannot set headers on a WebSocket: open `/realtime?ticket=<ticket>` within 30 s instead. A ticket works ' +
      'once, and the socket closes when the token it was made from expires. Engines and servers send ' +
      '`Authorization: jwt <token>` on the upgrade instead.',
  })
  @ApiCreatedResponse({ type: RealtimeTicketDto })
  @HttpCode(201)
  @Post('realtime/tickets')
  issueTicket(@CurrentCaller() caller: Caller): Promise<RealtimeTicketDto> {
    return this.realtime.issueTicket(caller);
  }

  @ApiOperation({
    summary: 'Read your events (the realtime inbox, without a socket)',
    description:
      'The events the socket would send, oldest first: every event after `after` (the id of the last one you got), ' +
      'up to `limit`. Without `after`: from the oldest kept (REALTIME_RETENTION). Poll with the last id to follow along.',
  })
  @ApiOkResponse({ schema: { type: 'array', items: { oneOf: EVENT_SCHEMAS.map((schema) => ({ $ref: getSchemaPath(schema) })) } } })
  @ApiErrors(400)
  @Get('notifications')
  notifications(@CurrentCaller() caller: Caller, @Query() { after, limit }: InboxQuery): Promise<EventFrame[]> {
    return this.realtime.inbox(caller, after, limit);
  }
}
