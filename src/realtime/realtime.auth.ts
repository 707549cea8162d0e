import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { AccessTokenClaims } from '../auth/auth.service.js';
import { readAuthorizationToken } from '../auth/authorization-header.js';
import { badRequest, unauthorized } from '../common/errors.js';
import { type Cursor, parseCursor, RealtimeTicketsRepository } from './notifications.repository.js';

/** Who opens a socket, until when, and from where in their inbox. */
export interface SocketGrant {
  userUid: string;
  roles: string[];
  tokenExpiresAt: Date;
  after: Cursor | undefined;
}

/**
 * Decides whether an upgrade to /realtime may open a socket: our JWT in `Authorization` (engines,
 * servers), or a single-use `?ticket=` from POST /realtime/tickets (browsers). Throws the ApiException
 * to answer the upgrade with (401, or 400 for a malformed `after`); no socket opens then.
 */
@Injectable()
export class RealtimeAuth {
  constructor(
    private readonly jwt: JwtService,
    private readonly tickets: RealtimeTicketsRepository,
  ) {}

  async grant(request: IncomingMessage): Promise<SocketGrant> {
    const query = new URL(request.url ?? '/', 'ws://localhost').searchParams;
    const afterText = query.get('after');
    const after = afterText === null ? undefined : parseCursor(afterText);
    if (afterText !== null && !after) {
      throw badRequest('after must be the id of an event received (<digits>-<digits>)', [{ field: 'after', message: 'not an event id' }]);
    }
    const header = request.headers.authorization;
    if (header !== undefined) {
      const token = readAuthorizationToken(header);
      if (!token) throw unauthorized('the Authorization header must be "jwt <token>" or "Bearer <token>"');
      let claims: AccessTokenClaims & { exp: number };
      try {
        claims = await this.jwt.verifyAsync<AccessTokenClaims & { exp: number }>(token);
      } catch {
        throw unauthorized('the token is invalid or has expired: sign in again');
      }
      if (typeof claims.sub !== 'string' || !Array.isArray(claims.roles)) throw unauthorized('the token is not one of ours');
      return { userUid: claims.sub, roles: claims.roles, tokenExpiresAt: new Date(claims.exp * 1000), after };
    }
    const ticket = query.get('ticket');
    if (ticket === null) {
      throw unauthorized('a socket needs "Authorization: jwt <token>", or ?ticket= from POST /realtime/tickets');
    }
    const holder = /^[A-Za-z0-9_-]{1,100}$/.test(ticket) ? await this.tickets.take(ticket) : undefined;
    if (!holder) throw unauthorized('the ticket is unknown, used already or expired: get another from POST /realtime/tickets');
    return { ...holder, after };
  }
}
