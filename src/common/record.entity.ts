import { Column, CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Filterable, secretFields } from './fields.js';

/**
 * The common fields of every stored record (docs/CONTRACT.md section 1). `version` is a plain column, not
 * TypeORM's @VersionColumn: that one starts at 1 and checks nothing on save() (typeorm#2848); the
 * versioned update in record.repository.ts does the real check in SQL.
 */
export abstract class RecordEntity {
  /** Record identifier (UUID v4), assigned by the service. */
  @PrimaryGeneratedColumn('uuid')
  @Filterable()
  uid: string;

  /** When the record was created (ISO 8601 UTC, milliseconds). */
  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  @Filterable()
  dateCreated: Date;

  /** When the record was last changed (ISO 8601 UTC, milliseconds). */
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  @Filterable()
  dateModified: Date;

  /** 0 on a new record, +1 on every successful write; send it back (body or If-Match) to write safely. */
  @Column({ type: 'integer', default: 0 })
  @Filterable()
  version: number;

  /**
   * The record as clients see it: every field but the @Secret() ones. A record read for a list has
   * them unset, and JSON leaves an unset field out: it is its own answer, not copied.
   */
  toJSON(): object {
    const hidden = secretFields(this.constructor as new () => RecordEntity);
    if (!hidden || !hasAnyOf(this, hidden)) return this;
    const visible: Record<string, unknown> = {};
    for (const key in this) if (!hidden.has(key)) visible[key] = this[key];
    return visible;
  }
}

function hasAnyOf(record: object, fields: ReadonlySet<string>): boolean {
  for (const field of fields) if ((record as Record<string, unknown>)[field] !== undefined) return true;
  return false;
}
