import { Body, Controller, Get, HttpCode, UseGuards } from '@nestjs/common';
import { Post } from '../audit/audited-routes.js';
import { AuthGuard } from '@nestjs/passport';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth.decorators.js';
import { ApiErrors } from '../common/route.decorators.js';
import { SignInRateLimit } from '../common/rate-limit.decorators.js';
import { AuthService } from './auth.service.js';
import { Client } from './client-info.decorator.js';
import { DeviceSignInDto } from './dto/device-sign-in.dto.js';
import { RefreshDto } from './dto/refresh.dto.js';
import { TokenDto } from './dto/token.dto.js';
import type { ProviderIdentity } from './users/identity.js';
import type { ClientInfo } from './sign-in-sessions/sign-in-sessions.repository.js';
import { SignedInUser } from './signed-in-user.decorator.js';

const SIGN_IN_DESCRIPTION =
  'Opens a player session: `token` lasts JWT_TTL seconds (`expiresIn`); trade `refreshToken` at POST /auth/refresh ' +
  'for the next pair. The client address and User-Agent are recorded on the session (GET /auth/sessions).';

const BANNED = [403, 'BANNED: the user is banned; `until` says until when (null: until an admin lifts it).'] as [403, string];

// @Public(): the global JwtGuard would look for our token; the sign-in routes take the provider's
// instead, checked by the passport strategy of each provider, or a device id, and refresh takes a
// refresh token.
@ApiTags('auth')
@Public()
@SignInRateLimit()
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  /** Exchanges an idp1 (OpenID Connect) token, verified against the provider's keys, for our tokens. */
  @ApiOperation({ summary: 'Sign in with an idp1 (OpenID Connect) token', description: SIGN_IN_DESCRIPTION })
  @ApiSecurity('idp1')
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors([401, 'UNAUTHORIZED: the provider token is missing, invalid or expired.'], BANNED, [
    503,
    'PROVIDER_UNAVAILABLE: the key set could not be fetched.',
  ])
  @UseGuards(AuthGuard('idp1'))
  @HttpCode(200)
  @Get('idp1')
  signInWithIdp1(@SignedInUser() identity: ProviderIdentity, @Client() client: ClientInfo): Promise<TokenDto> {
    return this.auth.signIn(identity, client);
  }

  /** Exchanges an idp2 (OAuth 2.0) token, checked by token introspection, for our tokens. */
  @ApiOperation({ summary: 'Sign in with an idp2 (OAuth 2.0 introspection) token', description: SIGN_IN_DESCRIPTION })
  @ApiSecurity('idp2')
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors([401, 'UNAUTHORIZED: the provider token is missing or not active.'], BANNED, [
    503,
    'PROVIDER_UNAVAILABLE: the provider did not answer in 5 s.',
  ])
  @UseGuards(AuthGuard('idp2'))
  @HttpCode(200)
  @Get('idp2')
  signInWithIdp2(@SignedInUser() identity: ProviderIdentity, @Client() client: ClientInfo): Promise<TokenDto> {
    return this.auth.signIn(identity, client);
  }

  /** Signs a guest in with the device id the game keeps: the same tokens as a provider's sign-in. */
  @ApiOperation({
    summary: 'Sign in with a device id (guest)',
    description:
      'The first sign-in of a device creates an account and its default persona (unless `create` is false); later ones sign in ' +
      'to the same account, as long as the device stays linked to it (POST /account/link/device, /account/unlink/device). ' +
      'Link an identity provider (POST /account/link/idp1) to keep the account on a new device. ' +
      SIGN_IN_DESCRIPTION,
  })
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors(
    400,
    [403, 'BANNED: the user is banned (`until` says until when); FORBIDDEN: device sign-in is turned off on this server.'],
    [404, 'NO_SUCH_ACCOUNT: `create` was false and no account has this device id.'],
  )
  @HttpCode(200)
  @Post('device')
  signInWithDevice(@Body() body: DeviceSignInDto, @Client() client: ClientInfo): Promise<TokenDto> {
    return this.auth.signInWithDevice(body.deviceId, body.create ?? true, client);
  }

  @ApiOperation({
    summary: 'Trade a refresh token for a new token pair',
    description:
      'The refresh token is spent: keep the new one. Presenting a spent token again signs the whole session out ' +
      '(a leaked copy becomes useless), except within REFRESH_REUSE_GRACE of its use, when it is taken for a ' +
      'concurrent refresh and refused with 409 without revoking anything. Each refresh keeps the session alive ' +
      'REFRESH_TTL longer. No access token needed: it may have expired.',
  })
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors(
    400,
    [
      401,
      'UNAUTHORIZED: the refresh token is unknown, already used (the session is then signed out), or its session expired or was revoked.',
    ],
    BANNED,
    [409, 'REFRESH_CONFLICT: another request used this refresh token a moment ago; use the tokens it received.'],
  )
  @HttpCode(200)
  @Post('refresh')
  refresh(@Body() body: RefreshDto, @Client() client: ClientInfo): Promise<TokenDto> {
    return this.auth.refresh(body.refreshToken, client);
  }
}
