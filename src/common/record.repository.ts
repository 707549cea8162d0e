import { HttpStatus, Inject } from '@nestjs/common';
import type { DataSource, EntityManager, EntityTarget, ObjectLiteral, QueryDeepPartialEntity, SelectQueryBuilder } from 'typeorm';
import type { Caller } from './auth.decorators.js';
import { ApiException, ErrorCode, notFound } from './errors.js';
import type { Filter, ListQuery } from './list-query.js';
import type { RecordEntity } from './record.entity.js';
import { secretFields } from './fields.js';
import { afterCommit, transact } from '../database/after-commit.js';
import type { Replicas } from '../database/replicas.js';
import { type NamedStatement, namedStatement, Statements } from '../database/statements.js';
import { poolQuery, RecordReader, type RunSql } from './record-reader.js';
import { markCut } from './page.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';

/** A database transaction, as repositories take it: every method that changes several rows runs in one. */
export type Transaction = EntityManager;

/** The alias of a repository's own table in its queries. */
export const ALIAS = 'record';

/** A field of the repository's own table, quoted. Field names come from code, never from input. */
export function column(field: string): string {
  return `"${ALIAS}"."${field}"`;
}

/** SQL for a timestamptz as JSON.stringify writes a Date: ISO 8601 in UTC with milliseconds. */
export const isoMilliseconds = (expression: string) => `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The query's rows, oldest first, locked for the transaction; rows another transaction holds are skipped,
 * so that workers on several instances each take their own (the matchmaker, the lobby sweep).
 */
export function claimOldest<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, limit: number): Promise<T[]> {
  return query
    .orderBy(column('dateCreated'), 'ASC')
    .addOrderBy(column('uid'), 'ASC')
    .limit(limit)
    .setLock('pessimistic_write')
    .setOnLocked('skip_locked')
    .getMany();
}

/**
 * Where the SQL of one kind of record lives (immich's repositories): list with filters, sort and
 * pages, count, find, lock, insert, the versioned update, delete. A resource's repository extends it
 * with the queries its rules need, named for what the game does, and restricts what a caller may see
 * in `scope`. Reads and deletes are built with TypeORM's query builder (reads run on the pool, see
 * RecordReader); inserts and the versioned update are plain SQL from the entity's columns; statements
 * the builder cannot express (upserts with arithmetic, recursive queries, advisory locks) are
 * parametrised SQL in the same repository.
 */
export abstract class RecordRepository<T extends RecordEntity> {
  private readonly reader: RecordReader<T>;
  private readonly runRead: RunSql;
  private readonly tableName: string;
  /** See isUnfiltered: SQL built once. */
  private countAll?: NamedStatement;
  /**
   * Prepared statements (a repository's own, with `statements.run`): injected as a property, not through
   * the constructor every repository passes its own arguments to; read only when a statement runs.
   */
  @Inject(Statements) protected readonly statements!: Statements;
  @Inject(APP_CONFIG) private readonly config!: AppConfig;
  private primaryRead?: RunSql;
  private readonly pageSql = new Map<string, string | false>();

  protected constructor(
    protected readonly dataSource: DataSource,
    readonly entity: EntityTarget<T>,
    /** How the record is named in messages ("item", "session"). */
    readonly recordName: string,
    /**
     * Catalog data only: list, count and find by id may be served by a read replica (docs/SCALING.md).
     * Reads inside transactions, and everything else, stay on the primary.
     */
    private readonly replicas?: Replicas,
  ) {
    this.tableName = dataSource.getMetadata(entity).tableName;
    this.runRead = replicas
      ? (sql, parameters, name) => replicas.read(this.tableName, sql, parameters, name)
      : (sql, parameters, name) => (this.primaryRead ??= poolQuery(dataSource, this.statements))(sql, parameters, name);
    this.reader = new RecordReader(dataSource, entity, this.runRead);
  }

  /**
   * Tells the read routing that this table changed, once `transaction` (if any) has committed: this
   * instance then reads it from the primary until a replica has caught up with the change. Every
   * write method of a routed repository calls it.
   */
  protected changed(transaction?: Transaction): void {
    const replicas = this.replicas;
    if (replicas) afterCommit(transaction ?? this.dataSource.manager, () => replicas.wrote(this.tableName));
  }

  /** The records `query` finds, read where the repository's reads go (a replica, for catalog data). */
  protected readRecords(query: SelectQueryBuilder<T>): Promise<T[]> {
    return this.reader.read(query);
  }

  /** Runs `work` in one database transaction (after-commit callbacks run when it commits). */
  transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    return transact(this.dataSource, work);
  }

  /** Restricts a query to the records the caller may see. The default: everything (catalog data). */
  protected scope(_query: SelectQueryBuilder<T>, _caller: Caller | undefined): void {}

  /**
   * Reports an updated record to whoever must hear of it (EventOutbox), in the update's transaction:
   * a repository whose changes others follow overrides it, and no caller can forget the event.
   */
  protected afterUpdate?(transaction: Transaction, record: T): Promise<void>;

  /** Likewise for a deleted record (as it was). */
  protected afterDelete?(transaction: Transaction, record: T): Promise<void>;

  /** Likewise for a new record (as stored). */
  protected afterInsert?(transaction: Transaction, record: T): Promise<void>;

  private get listMaxBytes(): number {
    return this.config.listMaxBytes;
  }

  private get isScoped(): boolean {
    return this.scope !== RecordRepository.prototype.scope;
  }

  /**
   * A page of the records the caller may see, at most LIST_MAX_BYTES of them whatever they hold: the
   * statement measures each row (RecordReader.rowBytesSql) and keeps those that fit, always the first;
   * a page cut short is marked with where the next starts (page.ts). Past the budget, at most one row
   * is read out of PostgreSQL, so a page of huge records costs what the budget allows.
   */
  async findAll(list: ListQuery, caller: Caller | undefined): Promise<T[]> {
    const unfiltered = this.isUnfiltered(list) && this.unfilteredPageSql(list.order);
    let sql: string;
    let parameters: unknown[];
    if (unfiltered) {
      [sql, parameters] = [unfiltered, [list.limit, list.skip, this.listMaxBytes]];
    } else {
      const query = this.filtered(list, caller).limit(list.limit).offset(list.skip);
      for (const { field, direction } of list.order) query.addOrderBy(column(field), direction);
      const page = this.reader.statement(query);
      if (!page) return query.getMany();
      [sql, parameters] = [
        withinBudget(page[0], this.reader.rowBytesSql('page') as string, list.order, page[1].length + 1),
        [...page[1], this.listMaxBytes],
      ];
    }
    const rows = await this.runRead(sql, parameters);
    return budgetedPage(rows, this.reader.fromRows(rows), list.skip, this.listMaxBytes);
  }

  async count(list: ListQuery, caller: Caller | undefined): Promise<number> {
    // COUNT(*), not getCount(): TypeORM counts COUNT(DISTINCT uid) in case joins repeat rows, and
    // PostgreSQL then sorts every matching uid. These queries never join (scopes filter with
    // subqueries), so every row is one record.
    const countQuery = () => this.filtered(list, caller).select('COUNT(*)', 'count');
    let counted: Record<string, unknown> | undefined;
    if (this.isUnfiltered(list)) {
      const { sql, name } = (this.countAll ??= namedStatement(`${this.tableName}_count`, countQuery().getQuery()));
      [counted] = await this.runRead(sql, [], name);
    } else {
      [counted] = await this.runRead(...countQuery().getQueryAndParameters());
    }
    return Number(counted?.count ?? 0);
  }

  /**
   * Whether a list or count reads the whole table: the commonest request (a catalog page), whose SQL
   * is then built once per sort order rather than by the query builder on every request, a visible
   * share of a count's cost (docs/PERFORMANCE.md). Filtered and scoped queries are built each time.
   */
  private isUnfiltered(list: ListQuery): boolean {
    return !this.isScoped && list.filters.length === 0;
  }

  /** The unfiltered page's SQL for this order, with LIMIT $1 OFFSET $2 and the byte budget $3; false if the reader cannot run it. */
  private unfilteredPageSql(order: ListQuery['order']): string | false {
    const key = order.map(({ field, direction }) => `${field} ${direction}`).join(',');
    let sql = this.pageSql.get(key);
    if (sql === undefined) {
      const query = this.dataSource.createQueryBuilder<T>(this.entity, ALIAS);
      for (const { field, direction } of order) query.addOrderBy(column(field), direction);
      const select = this.reader.selectSql(query);
      sql = select && withinBudget(`${select} LIMIT $1 OFFSET $2`, this.reader.rowBytesSql('page') as string, order, 3);
      // Orders are made of sortable fields only; the bound keeps a combinatorial client from growing it.
      if (this.pageSql.size < 100) this.pageSql.set(key, sql);
    }
    return sql;
  }

  /** The record, if the caller may see it; 404 otherwise (unknown and invisible answer alike). */
  async findOne(uid: string, caller: Caller | undefined): Promise<T> {
    const record = this.isScoped
      ? (await this.reader.read(this.byId(this.dataSource.createQueryBuilder<T>(this.entity, ALIAS), uid, caller)))[0]
      : await this.reader.findById(ALIAS, 'uid', uid);
    if (!record) throw notFound(this.recordName, uid);
    return record;
  }

  /**
   * The record, if the caller may see it, locked (`FOR UPDATE`) until the transaction ends: for writes
   * that decide on the record's current state (join, leave, an update that re-seats).
   */
  async lockOne(transaction: Transaction, uid: string, caller: Caller | undefined): Promise<T> {
    const record = await this.byId(transaction.createQueryBuilder<T>(this.entity, ALIAS), uid, caller)
      .setLock('pessimistic_write')
      .getOne();
    if (!record) throw notFound(this.recordName, uid);
    return record;
  }

  /** Inserts one record and answers it as stored (defaults, uid and dates filled in). */
  async insert(values: QueryDeepPartialEntity<T>, transaction?: Transaction): Promise<T> {
    return (await this.insertReturning(values, transaction, false))!;
  }

  /** Inserts one record unless a unique key already holds one (ON CONFLICT DO NOTHING): then undefined. */
  insertUnlessConflict(values: QueryDeepPartialEntity<T>, transaction?: Transaction): Promise<T | undefined> {
    return this.insertReturning(values, transaction, true);
  }

  private async insertReturning(
    values: QueryDeepPartialEntity<T>,
    transaction: Transaction | undefined,
    orIgnore: boolean,
  ): Promise<T | undefined> {
    if (!transaction && this.afterInsert) return this.transaction((own) => this.insertReturning(values, own, orIgnore));
    transaction ??= this.dataSource.manager;
    const record = await this.writeReturning(transaction, () => this.insertStatement(values, orIgnore));
    if (!record) return undefined;
    await this.afterInsert?.(transaction, record);
    this.changed(transaction);
    return record;
  }

  /**
   * `UPDATE … SET …, version = version + 1 WHERE uid = $1 [AND version = $2] RETURNING *` as one
   * statement, so that of two writes stating the same version exactly one wins (docs/CONTRACT.md section 3).
   */
  async updateVersioned(
    uid: string,
    patch: QueryDeepPartialEntity<T>,
    expectedVersion: number | undefined,
    transaction?: Transaction,
  ): Promise<T> {
    // An event is written in the same transaction as its change; without one, a single statement needs none.
    if (!transaction && this.afterUpdate) return this.transaction((own) => this.updateVersioned(uid, patch, expectedVersion, own));
    transaction ??= this.dataSource.manager;
    const record = await this.writeReturning(transaction, () => this.updateStatement(uid, patch, expectedVersion));
    if (record) {
      await this.afterUpdate?.(transaction, record);
      this.changed(transaction);
      return record;
    }

    const current = await transaction
      .createQueryBuilder<T>(this.entity, ALIAS)
      .select(column('version'), 'version')
      .where(`${column('uid')} = :uid`, { uid })
      .getRawOne<{ version: number }>();
    if (!current) throw notFound(this.recordName, uid);
    throw new ApiException(
      HttpStatus.CONFLICT,
      ErrorCode.VERSION_CONFLICT,
      `${this.recordName} ${uid} is at version ${current.version}, not ${expectedVersion}: read it again and retry`,
      { currentVersion: current.version },
    );
  }

  async deleteOne(uid: string, transaction?: Transaction): Promise<void> {
    if (!transaction && this.afterDelete) return this.transaction((own) => this.deleteOne(uid, own));
    transaction ??= this.dataSource.manager;
    const result = await transaction.createQueryBuilder().delete().from(this.entity).where('uid = :uid', { uid }).returning('*').execute();
    const [row] = result.raw as T[];
    if (!row) throw notFound(this.recordName, uid);
    await this.afterDelete?.(transaction, transaction.create(this.entity, row));
    this.changed(transaction);
  }

  /** Removes every record. DELETE rather than TRUNCATE: it honours foreign keys and locks rows, not the table. */
  async deleteAll(): Promise<void> {
    await this.dataSource.createQueryBuilder().delete().from(this.entity).execute();
    this.changed();
  }

  /**
   * Runs the insert or update `statement` builds and answers the record it returned, if any. The
   * statements are plain SQL with the entity's columns: TypeORM's insert and update builders cost
   * more CPU than the round trip itself on every write (docs/PERFORMANCE.md). An entity RecordReader
   * cannot hydrate takes the builders' way.
   */
  private async writeReturning(transaction: Transaction, statement: () => [string, unknown[]]): Promise<T | undefined> {
    const [sql, parameters] = statement();
    const rows = await transaction.query<Record<string, unknown>[]>(sql, parameters);
    return this.recordsOf(transaction, rows)[0];
  }

  /** The records of rows a statement returned with `RETURNING ${this.returned}`. */
  protected recordsOf(transaction: Transaction, rows: Record<string, unknown>[]): T[] {
    return this.reader.returning === false ? rows.map((row) => transaction.create(this.entity, row as T)) : this.reader.fromRows(rows);
  }

  private insertStatement(values: QueryDeepPartialEntity<T>, orIgnore: boolean): [string, unknown[]] {
    const names: string[] = [];
    const placeholders: string[] = [];
    const parameters: unknown[] = [];
    for (const [property, value] of Object.entries(values)) {
      const assigned = value === undefined ? undefined : this.assignment(property, value, parameters);
      if (!assigned) continue;
      names.push(assigned[0]);
      placeholders.push(assigned[1]);
    }
    const columns = names.length > 0 ? `(${names.join(', ')}) VALUES (${placeholders.join(', ')})` : 'DEFAULT VALUES';
    return [
      `INSERT INTO "${this.tableName}" ${columns}${orIgnore ? ' ON CONFLICT DO NOTHING' : ''} RETURNING ${this.returned}`,
      parameters,
    ];
  }

  private updateStatement(uid: string, patch: QueryDeepPartialEntity<T>, expectedVersion: number | undefined): [string, unknown[]] {
    const parameters: unknown[] = [];
    const sets = ['"version" = "version" + 1', '"dateModified" = now()'];
    for (const [property, value] of Object.entries(patch)) {
      if (value === undefined || property === 'version' || property === 'dateModified') continue;
      const assigned = this.assignment(property, value, parameters);
      if (assigned) sets.push(`${assigned[0]} = ${assigned[1]}`);
    }
    parameters.push(uid);
    let where = `"uid" = $${parameters.length}`;
    if (expectedVersion !== undefined) {
      parameters.push(expectedVersion);
      where += ` AND "version" = $${parameters.length}`;
    }
    // In a WITH: TypeORM answers an UPDATE's rows with its row count, a SELECT's as they are.
    return [
      `WITH updated AS (UPDATE "${this.tableName}" SET ${sets.join(', ')} WHERE ${where} RETURNING ${this.returned}) SELECT * FROM updated`,
      parameters,
    ];
  }

  /**
   * A column and the SQL of its new value: a parameter, converted as TypeORM would store it, or raw SQL
   * given as a function; undefined for a property that is no column (left out, as TypeORM's builders do).
   */
  private assignment(property: string, value: unknown, parameters: unknown[]): [string, string] | undefined {
    const entry = this.reader.writableColumn(property);
    if (!entry) return undefined;
    if (typeof value === 'function') return [`"${entry.databaseName}"`, (value as () => string)()];
    parameters.push(this.dataSource.driver.preparePersistentValue(value, entry));
    return [`"${entry.databaseName}"`, `$${parameters.length}`];
  }

  /**
   * SQL for the JSON of `row`, a row a statement returned with `RETURNING ${this.returned}`, as clients
   * see the record (RecordEntity.toJSON, then JSON.stringify): without its @Secret() fields, dates as
   * ISO 8601 strings with milliseconds. For a statement that writes an event of the record it changes.
   */
  protected jsonOf(row: string): string {
    if (this.reader.returning === false) throw new Error(`${this.recordName} rows are returned by column name, not property`);
    const metadata = this.dataSource.getMetadata(this.entity);
    const hidden = [...(secretFields(metadata.target as new () => RecordEntity) ?? [])];
    const dates = metadata.columns.filter((entry) => entry.type === 'timestamptz');
    const formatted = dates.map((entry) => `'${entry.propertyName}', ${isoMilliseconds(`${row}."${entry.propertyName}"`)}`);
    return `(to_jsonb(${row}) - '{${hidden.join(',')}}'::text[] || jsonb_build_object(${formatted.join(', ')}))`;
  }

  /**
   * What insert and update statements return: every column, under its property name where the reader
   * hydrates; for a repository's own write statements too (with `recordsOf`).
   */
  protected get returned(): string {
    return this.reader.returning === false ? '*' : this.reader.returning;
  }

  private byId(query: SelectQueryBuilder<T>, uid: string, caller: Caller | undefined): SelectQueryBuilder<T> {
    query.where(`${column('uid')} = :uid`, { uid });
    this.scope(query, caller);
    return query;
  }

  private filtered(list: ListQuery, caller: Caller | undefined): SelectQueryBuilder<T> {
    const query = this.dataSource.createQueryBuilder<T>(this.entity, ALIAS);
    this.scope(query, caller);
    list.filters.forEach((filter, index) => applyFilter(query, filter, `filter${index}`));
    return query;
  }
}

/**
 * A page statement (`page`: ORDER BY, LIMIT, OFFSET, every column by its property name) cut to a byte
 * budget ($budget): the rows in order up to the first that ends past it (which findAll drops, unless it
 * is the first). One running sum over rows already in order: no sort, no count of the page, which cost
 * as much again as the page (docs/PERFORMANCE.md).
 */
function withinBudget(page: string, rowBytes: string, order: ListQuery['order'], budget: number): string {
  const keys = (alias: string) => order.map(({ field, direction }) => `"${alias}"."${field}" ${direction}`).join(', ');
  return `SELECT * FROM (
      SELECT measured.*, sum(measured."__size") OVER (ORDER BY ${keys('measured')} ROWS UNBOUNDED PRECEDING) AS "__bytes"
      FROM (SELECT page.*, ${rowBytes} AS "__size" FROM (${page}) AS page) AS measured
    ) AS sized
    WHERE "__bytes" - "__size" < $${budget}
    ORDER BY ${keys('sized')}`;
}

/**
 * The records of a page withinBudget() read: the row that ends past the budget is dropped (unless it
 * is the first), and a page so cut says where the next one starts.
 */
function budgetedPage<T>(rows: Array<Record<string, unknown>>, records: T[], skip: number, budget: number): T[] {
  const last = rows.at(-1);
  if (!last || Number(last.__bytes) <= budget) return records;
  const kept = rows.length > 1 ? records.slice(0, -1) : records;
  return markCut(kept, skip + kept.length);
}

const COMPARISONS = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function applyFilter<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, filter: Filter, parameter: string): void {
  const target = column(filter.field);
  const [first, second] = filter.values;
  switch (filter.operator) {
    case 'in':
      query.andWhere(`${target} IN (:...${parameter})`, { [parameter]: filter.values });
      return;
    case 'range':
      query.andWhere(`${target} BETWEEN :${parameter}Low AND :${parameter}High`, {
        [`${parameter}Low`]: first,
        [`${parameter}High`]: second,
      });
      return;
    case 'like':
      // Case-insensitive substring; the client's % and _ are matched literally.
      query.andWhere(`${target} ILIKE :${parameter} ESCAPE '\\'`, {
        [parameter]: `%${String(first).replace(/[\\%_]/g, (character) => `\\${character}`)}%`,
      });
      return;
    case 'ne':
      // "not equal" includes the records where the field is empty, as a player would expect.
      query.andWhere(`${target} IS DISTINCT FROM :${parameter}`, { [parameter]: first });
      return;
    default:
      query.andWhere(`${target} ${COMPARISONS[filter.operator]} :${parameter}`, { [parameter]: first });
  }
}
