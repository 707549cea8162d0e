import { HttpStatus, Inject } from '@nestjs/common';
import type pg from 'pg';
import type {
  DataSource,
  EntityManager,
  EntityMetadata,
  EntityTarget,
  ObjectLiteral,
  QueryDeepPartialEntity,
  SelectQueryBuilder,
} from 'typeorm';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { afterCommit, transact } from './after-commit.js';
import type { Replicas } from './replicas.js';
import { queryConfig, runSql, runStatement, type Statement, statement } from './statement.js';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, ErrorCode, notFound } from '../common/errors.js';
import { secretFields } from '../common/fields.js';
import type { Filter, ListQuery } from '../common/list-query.js';
import { markCut } from '../common/page.js';
import type { RecordEntity } from '../common/record.entity.js';

type ColumnMetadata = EntityMetadata['columns'][number];

/** The writes the repository builds itself: its statements by the columns a write gives. */
type WriteKind = 'insert' | 'insert_or_ignore' | 'update' | 'update_expected';

/** A column a write sets, with its raw SQL when the value was given as a function (TypeORM's convention). */
type Assignment = { entry: ColumnMetadata; raw?: string };

const isInsert = (kind: WriteKind) => kind === 'insert' || kind === 'insert_or_ignore';

/** Write shapes (kind and columns) kept, and prepared, per repository; rarer shapes are built per write. */
const WRITE_SHAPES = 64;

/**
 * A value as its column stores it, as TypeORM's builders send it: through the column's transformers,
 * and JSON text for jsonb (pg would send an array as a PostgreSQL array, a string as it is).
 */
function storedValue(entry: ColumnMetadata, value: unknown): unknown {
  const transformers = entry.transformer === undefined ? [] : [entry.transformer].flat();
  const stored = transformers.reduce<unknown>((current, transformer) => transformer.to(current), value);
  return (entry.type === 'jsonb' || entry.type === 'json') && stored !== null ? JSON.stringify(stored) : stored;
}

/** An unfiltered page's parameters: LIMIT, OFFSET and the byte budget. */
type PageValues = { limit: number; offset: number; budget: number };

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
 * in `scope`. Two styles only, both through TypeORM's public API: its query builder for ordinary
 * reads and writes, and named statements (src/database/statement.ts) for what the builder cannot say
 * or a measured hot path prepares. Rows come back under the entity's property names and become
 * records of its class (`recordsOf`), whose toJSON leaves the @Secret() fields out.
 */
export abstract class RecordRepository<T extends RecordEntity> {
  private readonly metadata: EntityMetadata;
  private readonly tableName: string;
  /** The entity's columns, in declaration order: the order of a record's JSON. */
  private readonly columns: ColumnMetadata[];
  /** The columns a list page reads: all but the @Secret() ones, which no answer shows. */
  private readonly listedColumns: ColumnMetadata[];
  /** Every column under its property name, for SELECT and RETURNING lists. */
  private readonly selectList: string;
  private readonly findById: Statement<{ uid: string }>;
  private readonly countAll: Statement<Record<string, never>, { count: string }>;
  @Inject(APP_CONFIG) private readonly config!: AppConfig;
  private readonly pageStatements = new Map<string, Statement<PageValues>>();
  private readonly writeStatements = new Map<string, Statement<Record<string, unknown>>>();

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
    this.metadata = dataSource.getMetadata(entity);
    this.tableName = this.metadata.tableName;
    this.columns = this.metadata.columns.filter((entry) => entry.isSelect);
    const hidden = secretFields(this.metadata.target as new () => RecordEntity);
    this.listedColumns = this.columns.filter((entry) => !hidden?.has(entry.propertyName));
    this.selectList = this.columns.map((entry) => `"${entry.databaseName}" AS "${entry.propertyName}"`).join(', ');
    const aliased = this.columns.map((entry) => `${column(entry.databaseName)} AS "${entry.propertyName}"`).join(', ');
    // The commonest reads, prepared where statements are (docs/PERFORMANCE.md).
    this.findById = statement(
      `${this.tableName}_by_id`,
      (p) => `SELECT ${aliased} FROM "${this.tableName}" "${ALIAS}" WHERE ${column('uid')} = ${p.uid}`,
    );
    this.countAll = statement(`${this.tableName}_count`, () => `SELECT COUNT(*) AS count FROM "${this.tableName}"`);
  }

  /** Whether statements are prepared (DATABASE_PREPARED_STATEMENTS). */
  protected get prepared(): boolean {
    return this.config.preparedStatements;
  }

  /** Runs one of the repository's named statements, in `transaction` or on its own. */
  protected run<P extends object, R>(transaction: Transaction | undefined, named: Statement<P, R>, values: P): Promise<R[]> {
    return runStatement(transaction ?? this.dataSource, named, values, this.prepared);
  }

  /**
   * The rows of a read outside any transaction: on a fresh enough read replica for catalog data, else
   * on the primary; a replica that fails is left for the primary to answer.
   */
  protected async read<R>(config: pg.QueryConfig): Promise<R[]> {
    return (await this.replicas?.read<R>(this.tableName, config)) ?? runSql<R>(this.dataSource, config);
  }

  /**
   * Records of this entity from rows under its property names (other columns of the rows are left out);
   * `columns`, when the rows hold only some of them.
   */
  protected recordsOf(rows: ReadonlyArray<Record<string, unknown>>, columns = this.columns): T[] {
    const Entity = this.metadata.target as new () => T;
    return rows.map((row) => {
      const record = new Entity() as Record<string, unknown>;
      for (const entry of columns) record[entry.propertyName] = row[entry.propertyName];
      return record as T;
    });
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

  /** The records `query` finds (any WHERE, ORDER, LIMIT; no joins), read where the repository's reads go. */
  protected async readRecords(query: SelectQueryBuilder<T>): Promise<T[]> {
    const [text, values] = this.selecting(query).getQueryAndParameters();
    return this.recordsOf(await this.read({ text, values }));
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

  private get isScoped(): boolean {
    return this.scope !== RecordRepository.prototype.scope;
  }

  /**
   * A page of the records the caller may see, at most LIST_MAX_BYTES of them whatever they hold: the
   * statement measures each row (rowBytesSql) and keeps those that fit, always the first; a page cut
   * short is marked with where the next starts (page.ts). Its records hold no @Secret() field: the page
   * is read for an answer, and a column no answer shows is neither read nor parsed. Past the budget, at
   * most one row is read out of PostgreSQL, so a page of huge records costs what the budget allows. The
   * commonest page, a whole table in one order, is built once per order rather than by the query
   * builder each time.
   */
  async findAll(list: ListQuery, caller: Caller | undefined): Promise<T[]> {
    const budget = this.config.listMaxBytes;
    let config: pg.QueryConfig;
    if (this.isUnfiltered(list)) {
      config = queryConfig(this.unfilteredPage(list.order), { limit: list.limit, offset: list.skip, budget }, this.prepared);
    } else {
      const query = this.filtered(list, caller).limit(list.limit).offset(list.skip);
      for (const { field, direction } of list.order) query.addOrderBy(column(field), direction);
      const [page, values] = this.selecting(query, this.listedColumns).getQueryAndParameters() as [string, unknown[]];
      config = { text: this.withinBudget(page, list.order, `$${values.length + 1}`), values: [...values, budget] };
    }
    const rows = await this.read<Record<string, unknown>>(config);
    return budgetedPage(rows, this.recordsOf(rows, this.listedColumns), list.skip);
  }

  async count(list: ListQuery, caller: Caller | undefined): Promise<number> {
    let counted: { count?: unknown } | undefined;
    if (this.isUnfiltered(list)) {
      [counted] = await this.read(queryConfig(this.countAll, {}, this.prepared));
    } else {
      // COUNT(*), not getCount(): TypeORM counts COUNT(DISTINCT uid) in case joins repeat rows, and
      // PostgreSQL then sorts every matching uid. These queries never join (scopes filter with
      // subqueries), so every row is one record.
      const [text, values] = this.filtered(list, caller).select('COUNT(*)', 'count').getQueryAndParameters();
      [counted] = await this.read({ text, values });
    }
    return Number(counted?.count ?? 0);
  }

  /** Whether a list or count reads the whole table: the commonest request (a catalog page). */
  private isUnfiltered(list: ListQuery): boolean {
    return !this.isScoped && list.filters.length === 0;
  }

  /** The unfiltered page's statement for this order, prepared where statements are (a page's plan is not cheap). */
  private unfilteredPage(order: ListQuery['order']): Statement<PageValues> {
    const key = order.map(({ field, direction }) => `${field} ${direction}`).join(',');
    let page = this.pageStatements.get(key);
    if (page === undefined) {
      const query = this.dataSource.createQueryBuilder<T>(this.entity, ALIAS);
      for (const { field, direction } of order) query.addOrderBy(column(field), direction);
      const select = this.selecting(query, this.listedColumns).getQuery();
      page = statement<PageValues>(`${this.tableName}_page`, (p) =>
        this.withinBudget(`${select} LIMIT ${p.limit} OFFSET ${p.offset}`, order, p.budget),
      );
      // Orders are made of sortable fields only; the bound keeps a combinatorial client from growing it.
      if (this.pageStatements.size < 100) this.pageStatements.set(key, page);
    }
    return page;
  }

  /** The record, if the caller may see it; 404 otherwise (unknown and invisible answer alike). */
  async findOne(uid: string, caller: Caller | undefined): Promise<T> {
    const [record] = this.isScoped
      ? await this.readRecords(this.byId(this.dataSource.createQueryBuilder<T>(this.entity, ALIAS), uid, caller))
      : this.recordsOf(await this.read(queryConfig(this.findById, { uid }, this.prepared)));
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
    const [record] = this.recordsOf(await this.runWrite(transaction, orIgnore ? 'insert_or_ignore' : 'insert', values, {}));
    if (!record) return undefined;
    await this.afterInsert?.(transaction, record);
    this.changed(transaction);
    return record;
  }

  /**
   * `UPDATE … SET …, version = version + 1 WHERE uid = :uid [AND version = :expected] RETURNING …` as
   * one statement, so that of two writes stating the same version exactly one wins (docs/CONTRACT.md
   * section 3).
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
    const where = expectedVersion === undefined ? { uid } : { uid, expectedVersion };
    const [record] = this.recordsOf(
      await this.runWrite(transaction, expectedVersion === undefined ? 'update' : 'update_expected', patch, where),
    );
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

  /**
   * Runs an insert or a versioned update of `values` and answers the rows it returned: a property
   * that is no column is left out, and a function's value is raw SQL, as in TypeORM's builders. The
   * statement is built once per shape of write and prepared where statements are: TypeORM's insert
   * and update builders cost more CPU than the write's round trip (docs/PERFORMANCE.md).
   */
  private runWrite(
    transaction: Transaction,
    kind: WriteKind,
    values: object,
    where: { uid?: string; expectedVersion?: number },
  ): Promise<Array<Record<string, unknown>>> {
    const inserting = isInsert(kind);
    const updateDate = this.metadata.updateDateColumn;
    const parameters: Record<string, unknown> = { ...where };
    const assigned: Assignment[] = [];
    let shape: string = kind;
    for (const [property, value] of Object.entries(values)) {
      if (value === undefined || (!inserting && (property === 'version' || property === updateDate?.propertyName))) continue;
      const entry = this.metadata.findColumnWithPropertyName(property);
      if (!entry || !(inserting ? entry.isInsert : entry.isUpdate)) continue;
      if (typeof value === 'function') {
        const raw = (value as () => string)();
        assigned.push({ entry, raw });
        shape += `,${property}=${raw}`;
      } else {
        parameters[`value:${property}`] = storedValue(entry, value);
        assigned.push({ entry });
        shape += `,${property}`;
      }
    }
    let named = this.writeStatements.get(shape);
    const kept = named !== undefined || this.writeStatements.size < WRITE_SHAPES;
    named ??= this.writeStatement(kind, assigned);
    if (kept) this.writeStatements.set(shape, named);
    return runStatement(transaction, named, parameters, kept && this.prepared);
  }

  private writeStatement(kind: WriteKind, assigned: Assignment[]): Statement<Record<string, unknown>> {
    return statement<Record<string, unknown>>(`${this.tableName}_${kind}`, (p) => {
      const valueOf = ({ entry, raw }: Assignment) => raw ?? p[`value:${entry.propertyName}`];
      if (isInsert(kind)) {
        const names = assigned.map(({ entry }) => `"${entry.databaseName}"`).join(', ');
        const columns = assigned.length === 0 ? 'DEFAULT VALUES' : `(${names}) VALUES (${assigned.map(valueOf).join(', ')})`;
        const conflict = kind === 'insert_or_ignore' ? ' ON CONFLICT DO NOTHING' : '';
        return `INSERT INTO "${this.tableName}" ${columns}${conflict} RETURNING ${this.returning}`;
      }
      const updateDate = this.metadata.updateDateColumn;
      const sets = [
        '"version" = "version" + 1',
        ...(updateDate ? [`"${updateDate.databaseName}" = now()`] : []),
        ...assigned.map((assignment) => `"${assignment.entry.databaseName}" = ${valueOf(assignment)}`),
      ];
      const version = kind === 'update_expected' ? ` AND "version" = ${p.expectedVersion}` : '';
      return `UPDATE "${this.tableName}" SET ${sets.join(', ')} WHERE "uid" = ${p.uid}${version} RETURNING ${this.returning}`;
    });
  }

  async deleteOne(uid: string, transaction?: Transaction): Promise<void> {
    if (!transaction && this.afterDelete) return this.transaction((own) => this.deleteOne(uid, own));
    transaction ??= this.dataSource.manager;
    const result = await transaction
      .createQueryBuilder()
      .delete()
      .from(this.entity)
      .where('uid = :uid', { uid })
      .returning(this.returning)
      .execute();
    const [record] = this.recordsOf(result.raw as Array<Record<string, unknown>>);
    if (!record) throw notFound(this.recordName, uid);
    await this.afterDelete?.(transaction, record);
    this.changed(transaction);
  }

  /** Removes every record. DELETE rather than TRUNCATE: it honours foreign keys and locks rows, not the table. */
  async deleteAll(): Promise<void> {
    await this.dataSource.createQueryBuilder().delete().from(this.entity).execute();
    this.changed();
  }

  /** Every column under its property name: what inserts, updates and a repository's own statements return (with `recordsOf`). */
  protected get returning(): string {
    return this.selectList;
  }

  /**
   * SQL for the JSON of `row`, a row a statement returned with `RETURNING ${this.returning}`, as clients
   * see the record (RecordEntity.toJSON, then JSON.stringify): without its @Secret() fields, dates as
   * ISO 8601 strings with milliseconds. For a statement that writes an event of the record it changes;
   * test/realtime.e2e-spec.ts compares it with the REST answer.
   */
  protected jsonOf(row: string): string {
    const hidden = [...(secretFields(this.metadata.target as new () => RecordEntity) ?? [])];
    const dates = this.columns.filter((entry) => entry.type === 'timestamptz');
    const formatted = dates.map((entry) => `'${entry.propertyName}', ${isoMilliseconds(`${row}."${entry.propertyName}"`)}`);
    return `(to_jsonb(${row}) - '{${hidden.join(',')}}'::text[] || jsonb_build_object(${formatted.join(', ')}))`;
  }

  /**
   * SQL for about how many bytes a row's JSON takes, over a subquery `alias` that selects every column
   * by its property name, from what PostgreSQL knows without reading the values: a text's length; a
   * JSON value's or an array's stored size (never less than its JSON: a uuid takes 16 bytes stored, 39
   * in JSON, hence the factor), or, only when it is stored compressed, its length as text; a fixed
   * allowance for the other fields. Measuring every value as text doubled PostgreSQL's work for a page
   * (docs/PERFORMANCE.md).
   */
  private rowBytesSql(alias: string): string {
    let fixed = 2;
    const measured: string[] = [];
    for (const entry of this.listedColumns) {
      fixed += entry.propertyName.length + 4;
      const value = `"${alias}"."${entry.propertyName}"`;
      if (entry.isArray && entry.type === 'uuid') measured.push(`coalesce(pg_column_size(${value}), 0) * 5 / 2`);
      else if (entry.isArray || entry.type === 'jsonb' || entry.type === 'json') measured.push(storedOrTextSize(value));
      else if (entry.type === 'text' || entry.type === 'varchar') measured.push(`coalesce(octet_length(${value}), 4) + 2`);
      else fixed += FIXED_VALUE_BYTES;
    }
    return [String(fixed), ...measured].join(' + ');
  }

  /**
   * A page statement (`page`: ORDER BY, LIMIT, OFFSET, the listed columns by their property names) cut
   * to a byte budget (`budget`, its placeholder): the rows in order up to the first that ends past it
   * (which budgetedPage drops, unless it is the first, and knows by its `__past`). One running sum over
   * rows already in order: no sort, no count of the page, which cost as much again as the page
   * (docs/PERFORMANCE.md).
   */
  private withinBudget(page: string, order: ListQuery['order'], budget: string): string {
    const keys = (alias: string) => order.map(({ field, direction }) => `"${alias}"."${field}" ${direction}`).join(', ');
    const listed = this.listedColumns.map((entry) => `"sized"."${entry.propertyName}"`).join(', ');
    return `SELECT ${listed}, "__bytes" > ${budget} AS "__past" FROM (
      SELECT measured.*, sum(measured."__size") OVER (ORDER BY ${keys('measured')} ROWS UNBOUNDED PRECEDING) AS "__bytes"
      FROM (SELECT page.*, ${this.rowBytesSql('page')} AS "__size" FROM (${page}) AS page) AS measured
    ) AS sized
    WHERE "__bytes" - "__size" < ${budget}
    ORDER BY ${keys('sized')}`;
  }

  /** Selects `columns` (every column unless told) under their property names, as recordsOf reads them. */
  private selecting(query: SelectQueryBuilder<T>, columns = this.columns): SelectQueryBuilder<T> {
    const [first, ...rest] = columns;
    query.select(column(first.databaseName), first.propertyName);
    for (const entry of rest) query.addSelect(column(entry.databaseName), entry.propertyName);
    return query;
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

/** What a value of a fixed-size type (a uuid, a date, a number) takes in JSON at most, give or take. */
const FIXED_VALUE_BYTES = 40;

/** SQL: the bytes of a JSON value or array, as stored, or as text when it is stored compressed. */
export const storedOrTextSize = (value: string) =>
  `coalesce(CASE WHEN pg_column_compression(${value}) IS NULL THEN pg_column_size(${value}) ELSE octet_length(${value}::text) END, 4)`;

/**
 * The records of a page withinBudget() read: the row that ends past the budget is dropped (unless it
 * is the first), and a page so cut says where the next one starts.
 */
function budgetedPage<T>(rows: Array<Record<string, unknown>>, records: T[], skip: number): T[] {
  if (rows.at(-1)?.__past !== true) return records;
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
