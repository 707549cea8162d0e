/**
 * The API's bodies as the tests read them, taken from the OpenAPI document through the types that
 * `npm run sdk` generates (sdk/schema.d.ts): a test does not keep a shape of its own that the document
 * (and the SDK a game client builds on) has since changed. Type-only: nothing is loaded at run time.
 */
import type { Schema } from '../../sdk/index.js';

export type TokenBody = Schema<'TokenDto'>;
export type PlayerSessionBody = Schema<'PlayerSessionDto'>;
export type UserAccountBody = Schema<'UserAccountDto'>;
export type AuditEntryBody = Schema<'AuditEntryDto'>;
export type AccountBody = Schema<'AccountDto'>;
export type CountBody = Schema<'CountDto'>;
export type PersonaBody = Schema<'Persona'>;
export type ItemBody = Schema<'Item'>;
export type SessionBody = Schema<'Session'>;
export type SessionChangeBody = Schema<'SessionChange'>;
export type TicketBody = Schema<'Ticket'>;
export type QueueStatsBody = Schema<'QueueStatsDto'>;
export type InventoryItemBody = Schema<'InventoryItem'>;
export type ItemQuantityBody = Schema<'ItemQuantityEntry'>;
export type SnapshotBody = Schema<'InventorySnapshot'>;
export type TransactionBody = Schema<'InventoryTransaction'>;
export type SkillBody = Schema<'SkillProgress'>;
export type MediaAssetBody = Schema<'MediaAsset'>;
export type TextAssetBody = Schema<'TextAsset'>;
export type ResolvedTextBody = Schema<'ResolvedTextDto'>;
export type AchievementBody = Schema<'AchievementDefinition'>;
export type UnlockBody = Schema<'AchievementUnlock'>;
export type StorageObjectBody = Schema<'StorageObject'>;
export type StorageAcksBody = Schema<'StorageAcksDto'>;
export type StorageObjectsBody = Schema<'StorageObjectsDto'>;
export type StoragePageBody = Schema<'StoragePageDto'>;

/**
 * The JSON error body of docs/CONTRACT.md section 4, as a client reads it: the document's ErrorBody and
 * the fields the service sends that the document does not list (src/common/errors.ts has them).
 */
export type ErrorResponse = Schema<'ErrorBody'> & {
  /** Every error quotes its request id (also the X-Request-Id header). */
  requestId: string;
  errors?: Array<{ field: string; message: string }>;
  /** On VERSION_CONFLICT. */
  currentVersion?: number;
  /** On INSUFFICIENT_QUANTITY: the FAILED transaction that was stored. */
  transactionUid?: string;
  /** On ALREADY_QUEUED: the caller's own ticket holding their place, and the user without one. */
  ticketUid?: string;
  userUid?: string;
};

/**
 * What a route answers when a test reads its record and its error alike: the record (2xx) or an error
 * body. Both have a `status` (a word in one, a number in the other), so a plain intersection would be
 * `never`.
 */
export type BodyOrError<Body extends { status: unknown }> = Omit<Body, 'status'> &
  Omit<ErrorResponse, 'status'> & { status: Body['status'] | number };
