import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { AccessTokenClaims } from '../auth/auth.service.js';
import { readAuthorizationToken } from '../auth/authorization-header.js';
import { callerOf } from '../auth/jwt.guard.js';
import { RevocationList } from '../auth/revocation-list.js';
import { badRequest, unauthorized } from '../common/errors.js';
import { type Cursor, parseCursor, RealtimeTicketsRepository, type TicketHolder } from './notifications.repository.js';

/** Who opens a socket, with which session's token, until when, and from where in their inbox. */
export interface SocketGrant extends TicketHolder {
  after: Cursor | undefined;
}

/**
 * Decides whether an upgrade to /realtime may open a socket: our JWT in `Authorization` (engines,
 * servers), or a single-use `?ticket=` from POST /realtime/tickets (browsers). Throws the ApiException
 * to answer the upgrade with (401, or 400 for a malformed `after`); no socket opens then. A revoked
 * session opens none either way.
 */
@Injectable()
export class RealtimeAuth {
  constructor(
    private readonly jwt: JwtService,
    private readonly tickets: RealtimeTicketsRepository,
    private readonly revocations: RevocationList,
  ) {}

  async grant(request: IncomingMessage): Promise<SocketGrant> {
    const query = new URL(request.url ?? '/', 'ws://localhost').searchParams;
    const afterText = query.get('after');
    const after = afterText === null ? undefined : parseCursor(afterText);
    if (afterText !== null && !after) {
      throw badRequest('after must be the id of an event received (<digits>-<digits>)', [{ field: 'after', message: 'not an event id' }]);
    }
    const holder = await this.holder(request.headers.authorization, query.get('ticket'));
    if (await this.isRevoked(holder)) throw unauthorized('the session was signed out or revoked: sign in again');
    return { ...holder, after };
  }

  /** Whether the socket's session has been revoked (checked again once the socket has joined the hub). */
  isRevoked(holder: TicketHolder): boolean | Promise<boolean> {
    return this.revocations.isRevoked(holder.userUid, holder.sessionUid, holder.tokenIssuedAt);
  }

  private async holder(header: string | undefined, ticket: string | null): Promise<TicketHolder> {
    if (header !== undefined) {
      const token = readAuthorizationToken(header);
      if (!token) throw unauthorized('the Authorization header must be "jwt <token>" or "Bearer <token>"');
      let claims: AccessTokenClaims;
      try {
        claims = await this.jwt.verifyAsync<AccessTokenClaims>(token);
      } catch {
        throw unauthorized('the token is invalid or has expired: sign in again');
      }
      const caller = callerOf(claims);
      return {
        userUid: caller.uid,
        roles: caller.roles,
        sessionUid: caller.sessionUid,
        tokenIssuedAt: caller.tokenIssuedAt,
        tokenExpiresAt: caller.tokenExpiresAt,
      };
    }
    if (ticket === null) {
      throw unauthorized('a socket needs "Authorization: jwt <token>", or ?ticket= from POST /realtime/tickets');
    }
    const holder = /^[A-Za-z0-9_-]{1,100}$/.test(ticket) ? await this.tickets.take(ticket) : undefined;
    if (!holder) throw unauthorized('the ticket is unknown, used already or expired: get another from POST /realtime/tickets');
    return holder;
  }
}
