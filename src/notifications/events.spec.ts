import { getSchemaPath } from '@nestjs/swagger';
import type { Transaction } from '../database/record.repository.js';
import type { SessionBrief, SessionChange } from '../sessions/dto/session-events.dto.js';
import type { Session } from '../sessions/session.entity.js';
import type { TicketChange } from '../tickets/dto/ticket-change.dto.js';
import { EVENT_SCHEMAS } from './event.dto.js';
import type { EventOutbox } from '../realtime/event-outbox.js';
import { EVENT_TYPES } from './events.js';

describe('the map of events', () => {
  it('gives every type a frame schema named for it, the names clients and the SDK know', () => {
    expect(EVENT_SCHEMAS.map((schema) => getSchemaPath(schema).replace('#/components/schemas/', ''))).toEqual([
      'TicketUpdatedEvent',
      'SessionUpdatedEvent',
      'SessionDeletedEvent',
      'SessionInvitedEvent',
      'TransactionPendingEvent',
      'TransactionUpdatedEvent',
      'InventoryUpdatedEvent',
      'AchievementUnlockedEvent',
      'StorageUpdatedEvent',
      'LeaderboardRecordUpdatedEvent',
      'LeaderboardRankLostEvent',
      'LeaderboardPeriodEndedEvent',
    ]);
    expect(EVENT_SCHEMAS).toHaveLength(EVENT_TYPES.length);
  });

  // The calls below are never made: they are for the type checker (`npm run lint` runs it), which fails
  // on a `@ts-expect-error` with no error under it.
  it("types the outbox: a payload that is not its type's does not compile", () => {
    const outbox = undefined as unknown as EventOutbox;
    const transaction = undefined as unknown as Transaction;
    const wrongPayloads = (brief: SessionBrief, change: SessionChange, session: Session, ticket: TicketChange) => [
      outbox.record(transaction, 'session.invited', brief, {}),
      outbox.record(transaction, 'session.updated', change, {}),
      // @ts-expect-error a brief lacks what changed
      outbox.record(transaction, 'session.updated', brief, {}),
      // @ts-expect-error the whole session where its brief is due
      outbox.record(transaction, 'session.invited', session, {}),
      // @ts-expect-error nor a field more than the brief
      outbox.record(transaction, 'session.invited', { ...brief, password: 'hunter2' }, {}),
      // @ts-expect-error another type's payload
      outbox.record(transaction, 'ticket.updated', brief, {}),
      // @ts-expect-error no such event
      outbox.record(transaction, 'ticket.created', ticket, {}),
      outbox.recordMany(transaction, 'ticket.updated', [{ data: ticket, users: [] }]),
      // @ts-expect-error the same in a batch
      outbox.recordMany(transaction, 'ticket.updated', [{ data: { ...ticket, criteria: [] }, users: [] }]),
    ];
    expect(wrongPayloads).toEqual(expect.any(Function));
  });
});
