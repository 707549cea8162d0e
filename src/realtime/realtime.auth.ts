import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { TokenVerifier } from '../security/identity.ports.js';
import { badRequest, unauthorized } from '../common/errors.js';
import { SECRET_TOKEN_PATTERN } from '../common/secret-token.js';
import { Budget } from '../common/rate-limit.decorators.js';
import { RateLimiter } from '../security/rate-limiter.js';
import { type Cursor, parseCursor, RealtimeTicketsRepository, type TicketHolder } from './notifications.repository.js';

/** Who opens a socket, with which session's token, until when, and from where in their inbox. */
export interface SocketGrant extends TicketHolder {
  after: Cursor | undefined;
}

const TICKET_REFUSED = 'the ticket is unknown, used already or expired: get another from POST /realtime/tickets';

/**
 * Decides whether an upgrade to /realtime may open a socket: our JWT in `Authorization` (engines,
 * servers), or a single-use `?ticket=` from POST /realtime/tickets (browsers). Throws the ApiException
 * to answer the upgrade with (429 over a rate limit, 401, or 400 for a malformed `after`); no socket
 * opens then. A revoked session opens none either way.
 */
@Injectable()
export class RealtimeAuth {
  constructor(
    private readonly tokens: TokenVerifier,
    private readonly tickets: RealtimeTicketsRepository,
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * An upgrade spends the budgets a REST request spends (RateLimitGuard), in the order that keeps a
   * flood cheap: the address's first, before a token is checked or a ticket looked up; then the
   * caller's, a signed-in user's own or else the address's. A ticket is used up only after both.
   */
  async grant(request: IncomingMessage): Promise<SocketGrant> {
    const query = new URL(request.url ?? '/', 'ws://localhost').searchParams;
    const address = this.limiter.byAddress(this.limiter.clientAddress(request));
    if (this.limiter.enabled) await this.limiter.spend(Budget.IP, address);
    const ticket = request.headers.authorization === undefined ? query.get('ticket') : null;
    let holder: TicketHolder | undefined;
    let refusal: unknown;
    try {
      holder = await this.identify(request, ticket);
    } catch (error) {
      refusal = error;
    }
    if (this.limiter.enabled) await this.limiter.spend(Budget.CALLER, holder ? this.limiter.byUser(holder.userUid) : address);

    const afterText = query.get('after');
    const after = afterText === null ? undefined : parseCursor(afterText);
    if (afterText !== null && !after) {
      throw badRequest('after must be the id of an event received (<digits>-<digits>)', [{ field: 'after', message: 'not an event id' }]);
    }
    if (!holder) throw refusal;
    if (ticket !== null) {
      holder = await this.tickets.take(ticket);
      if (!holder) throw unauthorized(TICKET_REFUSED);
    }
    if (await this.isRevoked(holder)) throw unauthorized('the session was signed out or revoked: sign in again');
    return { ...holder, after };
  }

  /** Whether the socket's session has been revoked (checked again once the socket has joined the hub). */
  isRevoked(holder: TicketHolder): boolean | Promise<boolean> {
    return this.tokens.isRevoked(holder.userUid, holder.sessionUid, holder.tokenIssuedAt);
  }

  /** Whom the credentials name; a ticket is only looked at here, not used up. */
  private async identify(request: IncomingMessage, ticket: string | null): Promise<TicketHolder> {
    const header = request.headers.authorization;
    if (header !== undefined) {
      // Revocation is asked last (grant), as for a ticket's holder: the caller's budget is spent first.
      const caller = await this.tokens.callerOf(request, header);
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
    const holder = SECRET_TOKEN_PATTERN.test(ticket) ? await this.tickets.find(ticket) : undefined;
    if (!holder) throw unauthorized(TICKET_REFUSED);
    return holder;
  }
}
