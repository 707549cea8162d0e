import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { type Cursor, type EventFrame, NotificationsRepository, RealtimeTicketsRepository } from './notifications.repository.js';

@Injectable()
export class RealtimeService {
  constructor(
    private readonly tickets: RealtimeTicketsRepository,
    private readonly notifications: NotificationsRepository,
  ) {}

  /** A single-use ticket that opens a socket for the caller, until the caller's token expires. */
  issueTicket(caller: Caller): Promise<{ ticket: string; expiresAt: Date }> {
    return this.tickets.issue({
      userUid: caller.uid,
      roles: caller.roles,
      sessionUid: caller.sessionUid,
      tokenIssuedAt: caller.tokenIssuedAt,
      tokenExpiresAt: caller.tokenExpiresAt,
    });
  }

  /** The caller's deliverable events after `after`. */
  async inbox(caller: Caller, after: Cursor, limit: number): Promise<EventFrame[]> {
    return (await this.notifications.after(caller.uid, after, limit)).events;
  }
}
