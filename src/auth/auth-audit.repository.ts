import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../database/record.repository.js';
import type { ClientInfo } from './sign-in-sessions/sign-in-sessions.repository.js';
import { runStatement, statement } from '../database/statement.js';

/** What the audit records. */
export enum AuditEvent {
  SIGN_IN = 'sign-in',
  REFRESH = 'refresh',
  REPLAY = 'replay-detected',
  LOGOUT = 'logout',
  LOGOUT_ALL = 'logout-all',
  SESSION_REVOKED = 'session-revoked',
  BAN = 'ban',
  UNBAN = 'unban',
  IDENTITY_LINKED = 'identity-linked',
  IDENTITY_UNLINKED = 'identity-unlinked',
  /** An admin deleted a persona's leaderboard record, or all of them (detail: by, leaderboard, period, persona, records). */
  LEADERBOARD_RECORDS_DELETED = 'leaderboard-records-deleted',
}

export type AuditOutcome = 'success' | 'refused';

export interface AuditEntry extends ClientInfo {
  userUid: string;
  event: AuditEvent;
  outcome: AuditOutcome;
  sessionUid?: string | null;
  /** Why it was refused, who banned, until when: never a token or a hash. */
  detail?: Record<string, unknown>;
}

export interface AuditRow extends Required<AuditEntry> {
  id: string;
  dateCreated: Date;
}

const RECORD_ENTRY = statement<
  Required<Omit<AuditEntry, 'detail' | 'sessionUid'>> & { sessionUid: string | null; detail: Record<string, unknown> | null }
>(
  'record_audit_entry',
  (p) => `INSERT INTO auth_audit ("userUid", event, outcome, "sessionUid", address, "userAgent", detail)
          VALUES (${p.userUid}, ${p.event}, ${p.outcome}, ${p.sessionUid}, ${p.address}, ${p.userAgent}, ${p.detail})`,
);

const LIST_ENTRIES = statement<{ userUid: string; before: string | null; limit: number }, AuditRow>(
  'list_audit_entries',
  (p) => `SELECT id::text, "userUid", event, outcome, "sessionUid", address, "userAgent", detail, "dateCreated"
       FROM auth_audit WHERE "userUid" = ${p.userUid} AND (${p.before}::bigint IS NULL OR id < ${p.before}::bigint)
       ORDER BY id DESC LIMIT ${p.limit}`,
);

/** The audit of sign-ins, refreshes, replays, sign-outs, bans, links and unlinks, per user, newest last. */
@Injectable()
export class AuthAuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records an entry: in `transaction` when it reports that transaction's change, else on its own. */
  async record(entry: AuditEntry, transaction: Transaction = this.dataSource.manager): Promise<void> {
    await runStatement(transaction, RECORD_ENTRY, {
      userUid: entry.userUid,
      event: entry.event,
      outcome: entry.outcome,
      sessionUid: entry.sessionUid ?? null,
      address: entry.address,
      userAgent: entry.userAgent,
      detail: entry.detail ?? null,
    });
  }

  /** The user's entries, newest first, older than the entry `before` (when given). */
  list(userUid: string, limit: number, before: string | undefined): Promise<AuditRow[]> {
    return runStatement(this.dataSource, LIST_ENTRIES, { userUid, before: before ?? null, limit });
  }
}
