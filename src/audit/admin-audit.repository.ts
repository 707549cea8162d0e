import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { WriteBatcher } from '../common/write-batcher.js';
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

/** The entries of a batch, one array per column, in order. */
type AuditColumns = { [K in keyof NewAuditEntry]: Array<NewAuditEntry[K]> };

/** The most entries one statement writes. */
const MAX_AUDIT_BATCH = 100;

// The actor's `provider:subject` is copied from their account in the same statement, so that the
// entry reads without a join and outlives the account. Ids follow the batch's order.
const RECORD = statement<AuditColumns>(
  'record_admin_audit',
  (
    p,
  ) => `INSERT INTO admin_audit ("actorUid", actor, action, path, "targetUid", status, "requestId", address, reason, request, before, after)
          SELECT e."actorUid", coalesce((SELECT provider || ':' || subject FROM users WHERE uid = e."actorUid"), 'unknown'),
                 e.action, e.path, e."targetUid", e.status, e."requestId", e.address, e.reason, e.request, e.before, e.after
            FROM unnest(${p.actorUid}::uuid[], ${p.action}::text[], ${p.path}::text[], ${p.targetUid}::uuid[], ${p.status}::int[],
                        ${p.requestId}::text[], ${p.address}::text[], ${p.reason}::text[], ${p.request}::jsonb[], ${p.before}::jsonb[],
                        ${p.after}::jsonb[])
                 WITH ORDINALITY AS e("actorUid", action, path, "targetUid", status, "requestId", address, reason, request, before, after, position)
           ORDER BY e.position`,
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

  /**
   * Every admin write waits for its entry: the entries of concurrent writes share one statement and
   * one commit (WriteBatcher), prepared where statements are.
   */
  private readonly batcher = new WriteBatcher<NewAuditEntry>((entries) => this.insert(entries), MAX_AUDIT_BATCH);

  /** Appends the entry; resolves once it is committed. */
  record(entry: NewAuditEntry): Promise<void> {
    return this.batcher.add(entry);
  }

  private async insert(entries: NewAuditEntry[]): Promise<void> {
    const columns = Object.fromEntries(RECORD.parameters.map((name) => [name, entries.map((entry) => entry[name])])) as AuditColumns;
    await runStatement(this.dataSource, RECORD, columns, this.config.preparedStatements);
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
