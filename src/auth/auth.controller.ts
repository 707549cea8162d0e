import { Controller, Get, HttpCode, UseGuards } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth.decorators.js';
import { ApiErrors } from '../common/route.decorators.js';
import { SignInRateLimit } from '../security/rate-limit.decorators.js';
import { AuthService } from './auth.service.js';
import { SignedInUser } from './signed-in-user.decorator.js';
import type { ProviderIdentity } from './identity.js';

export class TokenDto {
  // Explicit: the Swagger plugin only reads *.dto.ts and *.entity.ts files, so this class had no fields.
  /** Our JWT: send it as `Authorization: jwt <token>` on every other request. */
  @ApiProperty({ example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0YzFiM2EzZSJ9.c2lnbmF0dXJl' })
  token: string;
}

const PROVIDER_TOKEN_HEADER = {
  name: 'Authorization',
  required: true,
  description: "The identity provider's token, as `jwt <token>` (or `Bearer <token>`).",
};

// @Public(): the global JwtGuard would look for our token; these routes take the provider's instead,
// checked by the passport strategy of each provider.
@ApiTags('auth')
@Public()
@SignInRateLimit()
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  /** Exchanges an idp1 (OpenID Connect) token, verified against the provider's keys, for our JWT. */
  @ApiOperation({ summary: 'Sign in with an idp1 (OpenID Connect) token' })
  @ApiHeader(PROVIDER_TOKEN_HEADER)
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors(
    [401, 'UNAUTHORIZED: the provider token is missing, invalid or expired.'],
    [503, 'PROVIDER_UNAVAILABLE: the key set could not be fetched.'],
  )
  @UseGuards(AuthGuard('idp1'))
  @HttpCode(200)
  @Get('idp1')
  signInWithIdp1(@SignedInUser() identity: ProviderIdentity): Promise<TokenDto> {
    return this.auth.signIn(identity);
  }

  /** Exchanges an idp2 (OAuth 2.0) token, checked by token introspection, for our JWT. */
  @ApiOperation({ summary: 'Sign in with an idp2 (OAuth 2.0 introspection) token' })
  @ApiHeader(PROVIDER_TOKEN_HEADER)
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors(
    [401, 'UNAUTHORIZED: the provider token is missing or not active.'],
    [503, 'PROVIDER_UNAVAILABLE: the provider did not answer in 5 s.'],
  )
  @UseGuards(AuthGuard('idp2'))
  @HttpCode(200)
  @Get('idp2')
  signInWithIdp2(@SignedInUser() identity: ProviderIdentity): Promise<TokenDto> {
    return this.auth.signIn(identity);
  }
}
