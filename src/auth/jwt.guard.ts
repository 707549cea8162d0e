import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type AuthenticatedRequest, IS_OPTIONAL_AUTH, IS_PUBLIC } from '../common/auth.decorators.js';
import { unauthorized } from '../common/errors.js';
import { AccessTokens } from './access-token.js';

/**
 * The global guard: every route needs our JWT unless it is marked @Public() or @OptionalAuth(), so a
 * route added tomorrow is protected without anyone remembering to protect it. It checks the token's
 * signature, issuer, audience and expiry, and that its session was not revoked (AccessTokens): the
 * revocation list is in memory, so the hot path makes no database round trip (RevocationList says when it must).
 */
@Injectable()
export class JwtGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AccessTokens,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const optional = this.reflector.getAllAndOverride<boolean>(IS_OPTIONAL_AUTH, targets) ?? false;

    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    if (header === undefined) {
      if (optional) return true;
      throw unauthorized('this route needs a token: send "Authorization: jwt <token>" (get one from /auth/idp1 or /auth/idp2)');
    }
    request.caller = await this.tokens.authenticate(request, header);
    return true;
  }
}
