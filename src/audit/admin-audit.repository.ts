import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { runStatement, statement } from '../database/statement.js';
import { AdminAuditEntry } from './admin-audit.entity.js';
import type { AuditQuery } from './audit-rules.js';

/**
 * An entry as the interceptor hands it over, its request and records before and after as JSON text
 * (auditableJsonText); the database adds the id, the time and the actor's name.
 */
export type NewAuditEntry = Omit<AdminAuditEntry, 'id' | 'dateCreated' | 'actor' | 'request' | 'before' | 'after'> & {
  request: string | null;
  before: string | null;
  after: string | null;
};

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
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Every admin write runs it: prepared where statements are. */
  async record(entry: NewAuditEntry): Promise<void> {
    await runStatement(this.dataSource, RECORD, entry, this.config.preparedStatements);
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
