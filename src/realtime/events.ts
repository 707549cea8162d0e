/**
 * The events the service pushes (docs/REALTIME.md). Each is written to the recipients' inbox in the
 * same transaction as the change it reports (EventOutbox), and delivered over /realtime and
 * GET /notifications as `{ id, type, at, data }`.
 */
export const EVENT_TYPES = [
  'ticket.updated',
  'session.updated',
  'session.deleted',
  'session.invited',
  'transaction.pending',
  'transaction.updated',
  'inventory.updated',
  'achievement.unlocked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The NOTIFY channel on which committed events wake the instances that hold their recipients' sockets. */
export const REALTIME_CHANNEL = 'realtime';

/** A NOTIFY payload past this many recipients says `*` (everyone): PostgreSQL caps payloads at 8000 bytes. */
export const MAX_NOTIFIED_USERS = 150;
