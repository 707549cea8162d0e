import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import { type AuthenticatedRequest, IS_OPTIONAL_AUTH, IS_PUBLIC } from '../common/auth.decorators.js';
import { unauthorized } from '../common/errors.js';
import { ADMIN_ROLE, type AccessTokenClaims } from './auth.service.js';
import { verifyAccessToken } from './access-token.js';
import { readAuthorizationToken } from './authorization-header.js';

/**
 * The global guard: every route needs our JWT unless it is marked @Public() or @OptionalAuth(), so a
 * route added tomorrow is protected without anyone remembering to protect it. It checks the token's
 * signature, issuer, audience and expiry only; no database round trip on the hot path.
 */
@Injectable()
export class JwtGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtService,
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
    const token = readAuthorizationToken(header);
    if (!token) throw unauthorized('the Authorization header must be "jwt <token>" or "Bearer <token>"');
    let claims: AccessTokenClaims;
    try {
      claims = await verifyAccessToken(this.jwt, request, token);
    } catch {
      throw unauthorized('the token is invalid or has expired: sign in again');
    }
    if (typeof claims.sub !== 'string' || !Array.isArray(claims.roles)) throw unauthorized('the token is not one of ours');
    request.caller = {
      uid: claims.sub,
      roles: claims.roles,
      isAdmin: claims.roles.includes(ADMIN_ROLE),
      tokenExpiresAt: claims.exp === undefined ? undefined : new Date(claims.exp * 1000),
    };
    return true;
  }
}
