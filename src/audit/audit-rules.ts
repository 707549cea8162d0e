/**
 * Which requests the admin audit records and what it keeps of them: pure rules, unit-tested beside.
 */

/** The most characters an `X-Audit-Reason` holds. */
export const MAX_AUDIT_REASON = 500;

/** Visible characters and spaces: a reason is read by people, and a control character could forge lines in a log. */
const AUDIT_REASON = new RegExp(`^[^\\p{Cc}]{1,${MAX_AUDIT_REASON}}$`, 'u');

/** Field names whose values never enter the audit: what unlocks a session or an account. */
const SECRET_NAME = /password|secret|token/i;

const MASK = '***';

/**
 * Whether a request writes: every method but GET and HEAD, and the few GET routes that change state as
 * the interface document defines them (join, leave, unlock), which say so with `@Writes()`.
 */
export function isWrite(method: string, markedAsWrite: boolean): boolean {
  return markedAsWrite || (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS');
}

/**
 * The reason as stored (null when none is sent), or why it is refused (a 400 names the header): sent,
 * it holds 1 to MAX_AUDIT_REASON characters, whoever sends it; an empty one says nothing and is refused.
 */
export function readAuditReason(header: string | string[] | undefined): { reason: string | null } | { problem: string } {
  if (header === undefined) return { reason: null };
  if (Array.isArray(header)) return { problem: 'must be sent once' };
  const reason = header.trim();
  if (!AUDIT_REASON.test(reason)) return { problem: `must be 1 to ${MAX_AUDIT_REASON} characters without control characters` };
  return { reason };
}

/**
 * A request body as the audit keeps it: the parsed JSON, or `{ streamed: true }` for a body streamed to
 * storage (a media upload: the request's own stream, not JSON); the file's type, size and digest are in
 * the answer the entry keeps as `after`.
 */
export function auditableBody(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const prototype = Object.getPrototypeOf(body) as object | null;
  return prototype === Object.prototype || prototype === null ? body : { streamed: true };
}

/**
 * A value as JSON the audit can store is what JSON.stringify would write, with lone UTF-16 surrogates
 * (which a client may send, and PostgreSQL's jsonb refuses) replaced by U+FFFD, as the text columns
 * of the record itself store them.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * JSON.stringify writes a lone surrogate as a `\udXXX` escape; without one in the text (nor a client's
 * literal backslash-u, which looks the same) the text is stored as it is, and only the rare rest is walked.
 */
const SURROGATE_ESCAPE = /\\ud[89a-f]/i;

/** The value's JSON text, as the audit's jsonb columns take it; null for undefined and null. */
export function auditableJsonText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined || !SURROGATE_ESCAPE.test(text)) return text ?? null;
  const wellFormed = (inner: unknown): unknown => {
    if (typeof inner === 'string') return inner.replace(LONE_SURROGATE, '\ufffd');
    if (Array.isArray(inner)) return inner.map(wellFormed);
    if (inner === null || typeof inner !== 'object') return inner;
    return Object.fromEntries(
      Object.entries(inner as Record<string, unknown>).map(([key, entry]) => [key.replace(LONE_SURROGATE, '\ufffd'), wellFormed(entry)]),
    );
  };
  return JSON.stringify(wellFormed(JSON.parse(text)));
}

/** A copy of a request's JSON with the values of secret-named fields masked, at any depth. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, SECRET_NAME.test(key) ? MASK : maskSecrets(inner)]),
  );
}

/** What the audit list may be narrowed to; each filter is optional, and together they all hold. */
export interface AuditFilters {
  /** The admin's uid. */
  actorUid?: string;
  /** The record a route named. */
  targetUid?: string;
  /** Part of the operation, any case (`items`, `POST /users`). */
  action?: string;
  /** Entries at or after this time. */
  since?: Date;
  /** Entries before this time. */
  until?: Date;
}

export interface AuditQuery {
  filters: AuditFilters;
  /** Entries older than this id. */
  before: string | undefined;
  limit: number;
}

/** The most entries a page of the audit list holds (the list leaves before/after out, so a page stays small). */
export const MAX_AUDIT_PAGE = 200;
export const DEFAULT_AUDIT_PAGE = 50;

export const AUDIT_ID = /^[0-9]{1,18}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const MAX_ACTION_FILTER = 100;

/** A time as the audit list's `since` and `until` take it: an ISO 8601 date or date-time, or undefined. */
export function parseAuditTime(text: string): Date | undefined {
  const date = new Date(text);
  return ISO_DATE.test(text) && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** Part of an operation to look for (`items`, `POST /users`), or undefined. */
export const parseActionFilter = (text: string): string | undefined =>
  text.length >= 1 && text.length <= MAX_ACTION_FILTER && !/\p{Cc}/u.test(text) ? text : undefined;
