import { Controller, Get, HttpCode } from '@nestjs/common';
import { Delete, Post } from '../../audit/audited-routes.js';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../../common/auth.decorators.js';
import { ApiErrors, ApiUidParam, UidParam } from '../../common/route.decorators.js';
import { Client } from '../client-info.decorator.js';
import { PlayerSessionDto } from './dto/sign-in-session.dto.js';
import type { ClientInfo } from './sign-in-sessions.repository.js';
import { SignInSessionsService } from './sign-in-sessions.service.js';

/**
 * Signing out, and the signed-in player's sessions (docs/SECURITY.md). The class keeps its first name:
 * the document's operationIds are made from it (`PlayerSessionsController_logout`).
 */
@ApiTags('auth')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('auth')
export class PlayerSessionsController {
  constructor(private readonly sessions: SignInSessionsService) {}

  @ApiOperation({
    summary: 'Sign out (this session)',
    description: 'Revokes the session of the token sent: its tokens stop working on every instance, and its sockets close (4403).',
  })
  @ApiNoContentResponse({ description: 'Signed out; no body.' })
  @HttpCode(204)
  @Post('logout')
  async logout(@CurrentCaller() caller: Caller, @Client() client: ClientInfo): Promise<void> {
    await this.sessions.logout(caller, client);
  }

  @ApiOperation({
    summary: 'Sign out everywhere',
    description: 'Revokes every session of your user, and every token issued until now; each device must sign in again.',
  })
  @ApiNoContentResponse({ description: 'Signed out everywhere; no body.' })
  @HttpCode(204)
  @Post('logout-all')
  async logoutAll(@CurrentCaller() caller: Caller, @Client() client: ClientInfo): Promise<void> {
    await this.sessions.logoutAll(caller, client);
  }

  @ApiOperation({
    summary: 'List your active sessions',
    description: 'Newest first: where and when each sign-in happened, and when it was last refreshed. `current` marks this one.',
  })
  @ApiOkResponse({ type: [PlayerSessionDto] })
  @Get('sessions')
  list(@CurrentCaller() caller: Caller): Promise<PlayerSessionDto[]> {
    return this.sessions.list(caller);
  }

  @ApiOperation({
    summary: 'Revoke one of your sessions',
    description: "Signs that device out (admins: anyone's). Revoking one already over changes nothing.",
  })
  @ApiUidParam('id', 'session')
  @ApiNoContentResponse({ description: 'Revoked; no body.' })
  @ApiErrors(400, [404, 'NOT_FOUND: no such session, or not yours.'])
  @HttpCode(204)
  @Delete('sessions/:id')
  async revoke(@UidParam() id: string, @CurrentCaller() caller: Caller, @Client() client: ClientInfo): Promise<void> {
    await this.sessions.revoke(caller, id, client);
  }
}
