import { AchievementUnlock } from '../achievements/achievement-unlock.entity.js';
import { InventoryChange } from '../economy/dto/inventory-change.dto.js';
import { InventoryTransaction } from '../economy/transaction.entity.js';
import { LeaderboardPeriodEnded, LeaderboardRankLost, LeaderboardRecordChange } from '../leaderboards/dto/leaderboard-record.dto.js';
import { SessionBrief, SessionChange, SessionRemoval } from '../sessions/dto/session-events.dto.js';
import { StorageUpdated } from '../storage/dto/storage-answers.dto.js';
import { TicketChange } from '../tickets/dto/ticket-change.dto.js';

/**
 * The events the service pushes (docs/REALTIME.md), each with the class of its `data`: the one list
 * that the outbox's signature, the OpenAPI document's event schemas (src/realtime/dto/event.dto.ts) and
 * the SDK's `RealtimeEvent` union (`npm run sdk`) are derived from, so that they cannot disagree. Each
 * event is written to the recipients' inbox in the same transaction as the change it reports
 * (EventOutbox), and delivered over /realtime and GET /notifications as `{ id, type, at, data }`.
 * `description` documents `data` where its class alone does not say enough. The order is the document's.
 */
export const EVENTS = {
  'ticket.updated': { data: TicketChange, description: 'The ticket in brief: MATCH_FOUND with sessionUid once matched.' },
  'session.updated': { data: SessionChange },
  'session.deleted': { data: SessionRemoval },
  'session.invited': { data: SessionBrief, description: 'The session you were invited to: join it with GET /sessions/{uid}/join.' },
  'transaction.pending': { data: InventoryTransaction, description: 'A trade awaiting your persona: accept, decline.' },
  'transaction.updated': { data: InventoryTransaction, description: 'COMPLETED, DECLINED, CANCELED or FAILED.' },
  'inventory.updated': { data: InventoryChange },
  'achievement.unlocked': { data: AchievementUnlock },
  'storage.updated': { data: StorageUpdated, description: 'Re-read the object unless you hold this version; null: it was deleted.' },
  'leaderboard.record_updated': { data: LeaderboardRecordChange },
  'leaderboard.rank_lost': { data: LeaderboardRankLost },
  'leaderboard.period_ended': { data: LeaderboardPeriodEnded },
} as const satisfies Record<string, { data: new () => object; description?: string }>;

export type EventType = keyof typeof EVENTS;
/** What each event's `data` is, by type: `EventOutbox.record('ticket.updated', ...)` takes a TicketChange and nothing else. */
export type EventData = { [K in EventType]: InstanceType<(typeof EVENTS)[K]['data']> };
export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];

/**
 * `Given` if it has no field that `Wanted` lacks. Structural typing alone would let a whole Session
 * through where a SessionBrief is due, and the event would carry what docs/REALTIME.md keeps out of it.
 */
export type Exactly<Wanted, Given extends Wanted> = Given & Record<Exclude<keyof Given, keyof Wanted>, never>;

/** The NOTIFY channel on which committed events wake the instances that hold their recipients' sockets. */
export const REALTIME_CHANNEL = 'realtime';

/** A NOTIFY payload past this many recipients says `*` (everyone): PostgreSQL caps payloads at 8000 bytes. */
export const MAX_NOTIFIED_USERS = 150;
