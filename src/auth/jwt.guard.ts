import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import { type AuthenticatedRequest, type Caller, IS_OPTIONAL_AUTH, IS_PUBLIC } from '../common/auth.decorators.js';
import { unauthorized } from '../common/errors.js';
import { ADMIN_ROLE, type AccessTokenClaims } from './auth.service.js';
import { verifyAccessToken } from './access-token.js';
import { readAuthorizationToken } from './authorization-header.js';
import { RevocationList } from './revocation-list.js';

/**
 * The global guard: every route needs our JWT unless it is marked @Public() or @OptionalAuth(), so a
 * route added tomorrow is protected without anyone remembering to protect it. It checks the token's
 * signature, issuer, audience and expiry, and that its session was not revoked: the revocation list is
 * in memory, so the hot path makes no database round trip (RevocationList says when it must).
 */
@Injectable()
export class JwtGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtService,
    private readonly revocations: RevocationList,
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
    const caller = callerOf(claims);
    const revoked = this.revocations.isRevoked(caller.uid, caller.sessionUid, caller.tokenIssuedAt);
    if (revoked === true || (revoked !== false && (await revoked)))
      throw unauthorized('the session was signed out or revoked: sign in again');
    request.caller = caller;
    return true;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The caller a verified token names. A token without a session (`sid`) predates player sessions: it
 * could not be revoked, so it is refused (docs/SECURITY.md, upgrading).
 */
export function callerOf(claims: AccessTokenClaims): Caller {
  const { sub, roles, sid, iat, exp } = claims;
  if (typeof sub !== 'string' || !Array.isArray(roles) || typeof iat !== 'number' || typeof exp !== 'number') {
    throw unauthorized('the token is not one of ours');
  }
  if (sid === undefined) throw unauthorized('the token predates player sessions: sign in again');
  if (typeof sid !== 'string' || !UUID.test(sid)) throw unauthorized('the token is not one of ours');
  return {
    uid: sub,
    roles,
    isAdmin: roles.includes(ADMIN_ROLE),
    sessionUid: sid,
    tokenIssuedAt: new Date(iat * 1000),
    tokenExpiresAt: new Date(exp * 1000),
  };
}
