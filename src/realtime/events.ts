/**
 * One event a feature sends: the class of its `data`, and a description where the class alone does
 * not say enough.
 */
export interface EventDeclaration {
  data: new () => object;
  description?: string;
}

/** A feature's events, by type. */
export type EventDeclarations = Record<string, EventDeclaration>;

/** What each declared event's `data` is, by type. */
export type DataOf<Declared extends EventDeclarations> = { [K in keyof Declared]: InstanceType<Declared[K]['data']> };

/**
 * The events the service pushes (docs/REALTIME.md), by type, with the class of each one's `data`. Each
 * feature declares the events it sends in its own `*.events.ts` and adds them here by augmenting this
 * interface (`declare module '../realtime/events.js'`), so that realtime knows no feature; the catalog
 * of every event (src/notifications/events.ts) lists them for the OpenAPI document and the SDKs. Each
 * event is written to the recipients' inbox in the same transaction as the change it reports
 * (EventOutbox), and delivered over /realtime and GET /notifications as `{ id, type, at, data }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the features' augmentations
export interface EventMap {}

export type EventType = keyof EventMap;
/** What each event's `data` is, by type: `EventOutbox.record('ticket.updated', ...)` takes a TicketChange and nothing else. */
export type EventData = EventMap;

/**
 * `Given` if it has no field that `Wanted` lacks. Structural typing alone would let a whole Session
 * through where a SessionBrief is due, and the event would carry what docs/REALTIME.md keeps out of it.
 */
export type Exactly<Wanted, Given extends Wanted> = Given & Record<Exclude<keyof Given, keyof Wanted>, never>;

/** The NOTIFY channel on which committed events wake the instances that hold their recipients' sockets. */
export const REALTIME_CHANNEL = 'realtime';

/** A NOTIFY payload past this many recipients says `*` (everyone): PostgreSQL caps payloads at 8000 bytes. */
export const MAX_NOTIFIED_USERS = 150;
