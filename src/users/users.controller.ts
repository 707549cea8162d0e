import { Body, Controller, Get, HttpCode, Query } from '@nestjs/common';
import { Delete, Post } from '../audit/audited-routes.js';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiProviderParam, ProviderParam } from './provider.param.js';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { AchievementUnlock } from '../achievements/achievement-unlock.entity.js';
import { Client } from '../auth/client-info.decorator.js';
import type { IdentityProvider } from '../auth/users/identity.js';
import type { ClientInfo } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import { User } from '../auth/users/user.entity.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors, ApiUidParam, ListQueryParam, NEXT_SKIP_HEADER, UidParam } from '../common/route.decorators.js';
import { AuditEntryDto } from './dto/audit-entry.dto.js';
import { BanDto } from './dto/ban.dto.js';
import { UserAuditQuery } from './dto/user-audit-query.js';
import { UserAccountDto } from './dto/user-account.dto.js';
import { UsersService } from './users.service.js';

/** Accounts, for admins: look players up, ban and unban them, read their sign-in audit (docs/SECURITY.md). */
@ApiTags('users')
@ApiSecurity('jwt')
@ApiErrors(401, [403, 'FORBIDDEN: admins only.'])
@AdminOnly()
@AuditedRecord(UsersService)
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @ApiOperation({ summary: 'List users (admins)', description: 'With their identities, ban and active sessions.' })
  @ApiOkResponse({ type: [UserAccountDto], headers: NEXT_SKIP_HEADER })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(User) list: ListQuery): Promise<UserAccountDto[]> {
    return this.users.findAll(list);
  }

  @ApiOperation({ summary: 'Find a user by id (admins)' })
  @ApiUidParam('id', 'user')
  @ApiOkResponse({ type: UserAccountDto })
  @ApiErrors(400, 404)
  @Get(':id')
  findOne(@UidParam() id: string): Promise<UserAccountDto> {
    return this.users.findOne(id);
  }

  @ApiOperation({
    summary: 'Ban a user (admins)',
    description:
      'Until `until`, or until unbanned: the user cannot sign in (403 BANNED) or refresh; every session is revoked and ' +
      'every token issued so far refused on every instance within a second; open sockets close (4403).',
  })
  @ApiUidParam('id', 'user')
  @ApiOkResponse({ type: UserAccountDto, description: 'The user, banned.' })
  @ApiErrors([400, 'VALIDATION_FAILED: a bad body, `until` not in the future, or your own id.'], 404)
  @HttpCode(200)
  @Post(':id/ban')
  ban(@UidParam() id: string, @Body() body: BanDto, @CurrentCaller() admin: Caller, @Client() client: ClientInfo): Promise<UserAccountDto> {
    return this.users.ban(admin, id, body, client);
  }

  @ApiOperation({
    summary: 'Lift a ban (admins)',
    description: 'The user may sign in again; the sessions and tokens the ban voided stay void.',
  })
  @ApiUidParam('id', 'user')
  @ApiOkResponse({ type: UserAccountDto, description: 'The user, not banned.' })
  @ApiErrors(400, 404)
  @HttpCode(200)
  @Post(':id/unban')
  unban(@UidParam() id: string, @CurrentCaller() admin: Caller, @Client() client: ClientInfo): Promise<UserAccountDto> {
    return this.users.unban(admin, id, client);
  }

  @ApiOperation({
    summary: "Remove a user's identity (admins)",
    description:
      'A support case: the identity of that provider (every device, for `device`) no longer signs in to the account, and ' +
      'the player sessions it opened end on every instance within a second. The user keeps at least one identity.',
  })
  @ApiUidParam('id', 'user')
  @ApiProviderParam()
  @ApiOkResponse({ type: UserAccountDto, description: 'The user, without the identity.' })
  @ApiErrors(
    400,
    [404, 'NOT_FOUND: no such user, or the user has no identity of this provider.'],
    [409, 'LAST_IDENTITY: it is the only way into the account.'],
  )
  @Delete(':id/identities/:provider')
  unlinkIdentity(
    @UidParam() id: string,
    @ProviderParam() provider: IdentityProvider,
    @CurrentCaller() admin: Caller,
    @Client() client: ClientInfo,
  ): Promise<UserAccountDto> {
    return this.users.unlinkIdentity(admin, id, provider, client);
  }

  @ApiOperation({
    summary: 'Revoke every session of a user (admins)',
    description:
      'As the user\'s own "sign out everywhere": every session revoked and every token issued so far refused on every instance ' +
      'within a second, sockets closed (4403). Unlike a ban, the user may sign in again at once.',
  })
  @ApiUidParam('id', 'user')
  @ApiNoContentResponse({ description: 'Signed out everywhere; no body.' })
  @ApiErrors(400, 404)
  @HttpCode(204)
  @Delete(':id/sessions')
  async revokeSessions(@UidParam() id: string, @CurrentCaller() admin: Caller, @Client() client: ClientInfo): Promise<void> {
    await this.users.revokeSessions(admin, id, client);
  }

  @ApiOperation({ summary: "List a user's achievement unlocks (admins)", description: 'What the user sees at GET /achievements/unlocked.' })
  @ApiUidParam('id', 'user')
  @ApiOkResponse({ type: [AchievementUnlock], headers: NEXT_SKIP_HEADER })
  @ApiErrors(400, 404)
  @Get(':id/unlocks')
  unlocks(@UidParam() id: string, @ListQueryParam(AchievementUnlock) list: ListQuery): Promise<AchievementUnlock[]> {
    return this.users.unlocksOf(id, list);
  }

  @ApiOperation({
    summary: "Read a user's sign-in audit (admins)",
    description:
      'Sign-ins, refreshes, replays detected, sign-outs, revocations, bans, and identities linked and unlinked, newest first, ' +
      'with time, address and outcome.',
  })
  @ApiUidParam('id', 'user')
  @ApiOkResponse({ type: [AuditEntryDto] })
  @ApiErrors(400, 404)
  @Get(':id/audit')
  audit(@UidParam() id: string, @Query() { limit, before }: UserAuditQuery): Promise<AuditEntryDto[]> {
    return this.users.auditOf(id, limit, before);
  }
}
