import { Body, Controller, Get, HttpCode } from '@nestjs/common';
import { Post } from '../audit/audited-routes.js';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Client } from '../auth/client-info.decorator.js';
import { Idp1Strategy } from '../auth/providers/idp1.strategy.js';
import { Idp2Strategy } from '../auth/providers/idp2.strategy.js';
import type { IdentityProvider } from '../auth/users/identity.js';
import type { ClientInfo } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { LIMITS } from '../common/limits.js';
import { ApiErrors } from '../common/route.decorators.js';
import { SignInRateLimit } from '../common/rate-limit.decorators.js';
import { AccountService } from './account.service.js';
import { AccountDto } from './dto/account.dto.js';
import { LinkDeviceDto } from './dto/link-device.dto.js';
import { LinkProviderDto } from './dto/link-provider.dto.js';
import { UnlinkDto } from './dto/unlink.dto.js';
import { ApiProviderParam, ProviderParam } from './provider.param.js';

const IDENTITY_IN_USE = [
  409,
  'IDENTITY_IN_USE: it belongs to another account (which the answer does not name); CONFLICT: your account has another ' +
    'identity of this provider, or the most devices it may.',
] as [409, string];

const LINK_DESCRIPTION =
  'Signing in with it afterwards, on any device, opens this account: the same uid, personas, inventory and progress. ' +
  'Linking an identity the account has already changes nothing. Counts against the sign-in rate limit (RATE_LIMIT_AUTH_PER_MINUTE).';

/** The signed-in player's own account: their identities, linked and unlinked (docs/GUIDE.md, sign-in). */
@ApiTags('account')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('account')
export class AccountController {
  constructor(
    private readonly accounts: AccountService,
    private readonly idp1: Idp1Strategy,
    private readonly idp2: Idp2Strategy,
  ) {}

  @ApiOperation({
    summary: 'Your account and the identities that sign in to it',
    description: 'A device is shown by its provider only: its id is a secret.',
  })
  @ApiOkResponse({ type: AccountDto })
  @Get()
  findMine(@CurrentCaller() caller: Caller): Promise<AccountDto> {
    return this.accounts.account(caller.uid);
  }

  @ApiOperation({ summary: 'Link a device to your account', description: `${LINK_DESCRIPTION} At most ${LIMITS.devicesPerUser} devices.` })
  @ApiOkResponse({ type: AccountDto, description: 'Your account, with the device.' })
  @ApiErrors(400, [403, 'FORBIDDEN: device sign-in is turned off on this server.'], IDENTITY_IN_USE)
  @SignInRateLimit()
  @HttpCode(200)
  @Post('link/device')
  linkDevice(@Body() body: LinkDeviceDto, @CurrentCaller() caller: Caller, @Client() client: ClientInfo): Promise<AccountDto> {
    return this.accounts.link(caller, this.accounts.device(body.deviceId), client);
  }

  @ApiOperation({
    summary: 'Link an idp1 (OpenID Connect) identity to your account',
    description: `The idp1 token goes in the body. ${LINK_DESCRIPTION}`,
  })
  @ApiOkResponse({ type: AccountDto, description: 'Your account, with the idp1 identity.' })
  @ApiErrors(400, [401, 'UNAUTHORIZED: no token of ours, or the idp1 token is invalid or expired.'], IDENTITY_IN_USE, [
    503,
    'PROVIDER_UNAVAILABLE: the key set could not be fetched.',
  ])
  @SignInRateLimit()
  @HttpCode(200)
  @Post('link/idp1')
  async linkIdp1(@Body() body: LinkProviderDto, @CurrentCaller() caller: Caller, @Client() client: ClientInfo): Promise<AccountDto> {
    return this.accounts.link(caller, await this.idp1.verify(body.token), client);
  }

  @ApiOperation({
    summary: 'Link an idp2 (OAuth 2.0) identity to your account',
    description: `The idp2 token goes in the body. ${LINK_DESCRIPTION}`,
  })
  @ApiOkResponse({ type: AccountDto, description: 'Your account, with the idp2 identity.' })
  @ApiErrors(400, [401, 'UNAUTHORIZED: no token of ours, or the idp2 token is not active.'], IDENTITY_IN_USE, [
    503,
    'PROVIDER_UNAVAILABLE: the provider did not answer in 5 s.',
  ])
  @SignInRateLimit()
  @HttpCode(200)
  @Post('link/idp2')
  async linkIdp2(@Body() body: LinkProviderDto, @CurrentCaller() caller: Caller, @Client() client: ClientInfo): Promise<AccountDto> {
    return this.accounts.link(caller, await this.idp2.verify(body.token), client);
  }

  @ApiOperation({
    summary: 'Unlink an identity from your account',
    description:
      'A device is named by its `deviceId` (required for a device, refused for the others). The player sessions the identity ' +
      'opened end on every instance within a second, this one too if it was one of them. An account keeps at least one identity.',
  })
  @ApiProviderParam()
  @ApiOkResponse({ type: AccountDto, description: 'Your account, without the identity.' })
  @ApiErrors(
    400,
    [404, 'NOT_FOUND: your account has no such identity.'],
    [409, 'LAST_IDENTITY: it is the only way into your account; link another first.'],
  )
  @HttpCode(200)
  @Post('unlink/:provider')
  unlink(
    @ProviderParam() provider: IdentityProvider,
    @Body() body: UnlinkDto,
    @CurrentCaller() caller: Caller,
    @Client() client: ClientInfo,
  ): Promise<AccountDto> {
    return this.accounts.unlink(caller, caller.uid, { provider, deviceId: body.deviceId }, client);
  }
}
