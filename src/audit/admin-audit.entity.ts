import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One admin write, as the API answered it: who (the admin's uid and `provider:subject`, copied so the
 * entry outlives the account), when, what (the route, the record it named, the request with its secrets
 * masked, the `X-Audit-Reason` given) and the record before and after. Append-only: a trigger refuses
 * UPDATE, DELETE and TRUNCATE, so that an admin cannot cover their tracks through the database role the
 * service runs as.
 */
@Entity('admin_audit')
@Index('admin_audit_actorUid_idx', ['actorUid', 'id'])
@Index('admin_audit_targetUid_idx', ['targetUid', 'id'])
export class AdminAuditEntry {
  /** Order of entry (bigint, read as a string): the `before` of the next page. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  dateCreated: Date;

  @Column({ type: 'uuid' })
  actorUid: string;

  /** `provider:subject` of the admin, as ADMIN_USERS names them. */
  @Column({ type: 'text' })
  actor: string;

  /** The operation: method and route as the API document names it (`PUT /items/{id}`). */
  @Column({ type: 'text' })
  action: string;

  /** The path requested, without its query. */
  @Column({ type: 'text' })
  path: string;

  /** The record the route named (its `id`), if it named one. */
  @Column({ type: 'uuid', nullable: true })
  targetUid: string | null;

  @Column({ type: 'integer' })
  status: number;

  @Column({ type: 'text' })
  requestId: string;

  @Column({ type: 'text' })
  address: string;

  /** Why, as the admin said in `X-Audit-Reason`. */
  @Column({ type: 'text', nullable: true })
  reason: string | null;

  /** The body and query sent, with passwords and tokens masked. */
  @Column({ type: 'jsonb', nullable: true })
  request: Record<string, unknown> | null;

  /** The record as it was just before the write (null: created, or the route names no record). */
  @Column({ type: 'jsonb', nullable: true })
  before: unknown;

  /** The answer the admin received (null: deleted, or an answer without a body). */
  @Column({ type: 'jsonb', nullable: true })
  after: unknown;
}
