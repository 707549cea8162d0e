import { Body, Controller, HttpCode, HttpStatus, Inject, Req } from '@nestjs/common';
import { Post } from '../../audit/audited-routes.js';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../../common/auth.decorators.js';
import { ApiException, ErrorCode, forbidden } from '../../common/errors.js';
import { ApiErrors } from '../../common/route.decorators.js';
import { SignInRateLimit } from '../../common/rate-limit.decorators.js';
import { DEV_IDENTITY_PROVIDER } from './dev-identity-provider.token.js';
import type { DevIdentityProvider } from './dev-identity-provider.js';
import { DevTokenDto, DevTokenRequestDto } from './dto/dev-token.dto.js';

/** Loopback addresses, as Fastify reports them (IPv4, IPv6 and IPv4-mapped IPv6). */
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * The development provider's subject picker, as the console's development sign-in uses it: what
 * `npm run dev-token` prints, over HTTP. Served only while the development provider is (never in
 * production, nor with IDP1_JWKS_URL set), and only to this machine: the service listens on every
 * interface by default, and anyone on the network could otherwise make themselves `admin`.
 */
@ApiTags('auth')
@Public()
@SignInRateLimit()
@Controller('auth')
export class DevSignInController {
  constructor(@Inject(DEV_IDENTITY_PROVIDER) private readonly provider: DevIdentityProvider | null) {}

  @ApiOperation({
    summary: 'Get a development provider token (development only)',
    description:
      'A token of the built-in development identity provider for any subject, to exchange at GET /auth/idp1. 404 unless ' +
      'the development provider runs (NODE_ENV is not production and IDP1_JWKS_URL is unset); 403 to a client on another machine.',
  })
  @ApiOkResponse({ type: DevTokenDto })
  @ApiErrors(
    400,
    [403, 'FORBIDDEN: only a client on this machine (loopback) may use it.'],
    [404, 'NOT_FOUND: the development provider is off.'],
  )
  @HttpCode(200)
  @Post('dev-token')
  async devToken(@Body() body: DevTokenRequestDto, @Req() request: FastifyRequest): Promise<DevTokenDto> {
    if (!this.provider) {
      throw new ApiException(
        HttpStatus.NOT_FOUND,
        ErrorCode.NOT_FOUND,
        'the development sign-in is off: a real identity provider is configured, or NODE_ENV=production',
      );
    }
    if (!LOOPBACK.test(request.ip)) throw forbidden('the development sign-in answers clients on this machine only');
    return { token: await this.provider.issueToken(body.subject) };
  }
}
