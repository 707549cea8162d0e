import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../common/record.repository.js';
import type { ClientInfo } from './player-sessions.repository.js';

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

/** The audit of sign-ins, refreshes, replays, sign-outs and bans, per user, newest last. */
@Injectable()
export class AuthAuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records an entry: in `transaction` when it reports that transaction's change, else on its own. */
  async record(entry: AuditEntry, transaction: Transaction = this.dataSource.manager): Promise<void> {
    await transaction.query(
      `INSERT INTO auth_audit ("userUid", event, outcome, "sessionUid", address, "userAgent", detail) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [entry.userUid, entry.event, entry.outcome, entry.sessionUid ?? null, entry.address, entry.userAgent, entry.detail ?? null],
    );
  }

  /** The user's entries, newest first, older than the entry `before` (when given). */
  list(userUid: string, limit: number, before: string | undefined): Promise<AuditRow[]> {
    return this.dataSource.query<AuditRow[]>(
      `SELECT id::text, "userUid", event, outcome, "sessionUid", address, "userAgent", detail, "dateCreated"
       FROM auth_audit WHERE "userUid" = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
       ORDER BY id DESC LIMIT $3`,
      [userUid, before ?? null, limit],
    );
  }
}
