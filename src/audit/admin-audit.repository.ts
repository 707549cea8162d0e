import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { runStatement, statement } from '../database/statement.js';
import { AdminAuditEntry } from './admin-audit.entity.js';
import type { AuditQuery } from './audit-rules.js';

/** An entry as the interceptor hands it over; the database adds the id, the time and the actor's name. */
export type NewAuditEntry = Omit<AdminAuditEntry, 'id' | 'dateCreated' | 'actor'>;

/** What a page of the list shows of an entry: everything but the request and the record before and after. */
export type AuditSummary = Omit<AdminAuditEntry, 'request' | 'before' | 'after'>;

// The actor's `provider:subject` is copied from their account in the same statement, so that the
// entry reads without a join and outlives the account.
const RECORD = statement<NewAuditEntry>(
  'record_admin_audit',
  (
    p,
  ) => `INSERT INTO admin_audit ("actorUid", actor, action, path, "targetUid", status, "requestId", address, reason, request, before, after)
          SELECT ${p.actorUid}, coalesce((SELECT provider || ':' || subject FROM users WHERE uid = ${p.actorUid}), 'unknown'),
                 ${p.action}, ${p.path}, ${p.targetUid}, ${p.status}, ${p.requestId}, ${p.address}, ${p.reason},
                 ${p.request}, ${p.before}, ${p.after}`,
);

const SUMMARY_FIELDS = [
  'id',
  'dateCreated',
  'actorUid',
  'actor',
  'action',
  'path',
  'targetUid',
  'status',
  'requestId',
  'address',
  'reason',
];

/** The admin audit: appended to by AdminAuditInterceptor, read by admins, never changed. */
@Injectable()
export class AdminAuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(entry: NewAuditEntry): Promise<void> {
    await runStatement(this.dataSource, RECORD, {
      ...entry,
      // jsonb parameters travel as JSON text: a string answer would otherwise be taken for JSON itself.
      request: entry.request === null ? null : JSON.stringify(entry.request),
      before: entry.before === null || entry.before === undefined ? null : JSON.stringify(entry.before),
      after: entry.after === null || entry.after === undefined ? null : JSON.stringify(entry.after),
    } as unknown as NewAuditEntry);
  }

  /** A page of entries matching every filter, newest first, older than `before` when given. */
  list({ filters, before, limit }: AuditQuery): Promise<AuditSummary[]> {
    const query = this.dataSource
      .createQueryBuilder(AdminAuditEntry, 'entry')
      .select(SUMMARY_FIELDS.map((field) => `entry.${field}`))
      .orderBy('entry.id', 'DESC')
      .limit(limit);
    if (filters.actorUid) query.andWhere('entry.actorUid = :actorUid', { actorUid: filters.actorUid });
    if (filters.targetUid) query.andWhere('entry.targetUid = :targetUid', { targetUid: filters.targetUid });
    if (filters.action) query.andWhere(`strpos(lower(entry.action), lower(:action)) > 0`, { action: filters.action });
    if (filters.since) query.andWhere('entry.dateCreated >= :since', { since: filters.since });
    if (filters.until) query.andWhere('entry.dateCreated < :until', { until: filters.until });
    if (before) query.andWhere('entry.id < :before', { before });
    return query.getMany();
  }

  findOne(id: string): Promise<AdminAuditEntry | null> {
    return this.dataSource.createQueryBuilder(AdminAuditEntry, 'entry').where('entry.id = :id', { id }).getOne();
  }
}
