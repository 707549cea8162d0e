import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { type Cursor, type EventFrame, NotificationsRepository, RealtimeTicketsRepository } from './notifications.repository.js';

@Injectable()
export class RealtimeService {
  constructor(
    private readonly tickets: RealtimeTicketsRepository,
    private readonly notifications: NotificationsRepository,
    @InjectConfig() private readonly config: AppConfig,
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

  /** The caller's deliverable events after `after` (at most LIST_MAX_BYTES of them: read on after the last). */
  async inbox(caller: Caller, after: Cursor, limit: number): Promise<EventFrame[]> {
    return (await this.notifications.after(caller.uid, after, limit, this.config.listMaxBytes)).events;
  }
}
