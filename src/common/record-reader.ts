import type pg from 'pg';
import type { DataSource, EntityMetadata, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { type NamedStatement, namedStatement, type Statements } from '../database/statements.js';

type Column = EntityMetadata['columns'][number];

/** Runs one SQL statement and answers its rows; `name`: the prepared statement it may run as (a fixed text). */
export type RunSql = (sql: string, parameters: unknown[], name?: string) => Promise<Record<string, unknown>[]>;

/**
 * Runs a read outside any transaction straight on the pool TypeORM holds: TypeORM's `query()` makes a
 * query runner, logger and subscriber events for every statement, a visible share of a read by id
 * (docs/PERFORMANCE.md). A named read is prepared where `statements` prepare. Errors are pg's own,
 * which the exception filter maps as it maps TypeORM's.
 */
export function poolQuery(dataSource: DataSource, statements: Statements): RunSql {
  return async (sql, parameters, name) => {
    const pool = (dataSource.driver as unknown as { master?: pg.Pool }).master;
    return pool ? (await pool.query(statements.config(name, sql, parameters))).rows : dataSource.query(sql, parameters);
  };
}

/**
 * Reads the records a SELECT finds as entities: what TypeORM's getMany() returns, for a fraction of
 * its cost. The one way around the ORM on the read path, kept in this class; test/record-reader
 * .e2e-spec.ts compares it with TypeORM's find() for every entity, and docs/PERFORMANCE.md has the
 * figures. TypeORM's generic result transformer (rows grouped by primary key in case joins repeat them,
 * relation passes, an alias lookup per column and row) cost as much as the rest of a list request, and
 * its garbage more in GC; record queries never join. Each entity is built as TypeORM builds it: the
 * class's constructor (fields in declaration order, hence the JSON key order), then every selected
 * column, through the driver's prepareHydratedValue where pg's own value is not already TypeORM's.
 * An entity with relations, embedded columns or load listeners takes getMany().
 */
export class RecordReader<T extends ObjectLiteral> {
  private readonly metadata: EntityMetadata;
  /** The columns read() selects and hydrates; false: this entity takes getMany(). */
  private readonly columns: Column[] | false;
  /** Per column, whether hydrate() may take pg's value as it is. */
  private readonly deliveredAsIs: boolean[];
  /** The find-by-id statement, built on first use, and its prepared statement's name. */
  private byId?: NamedStatement;
  private returningList?: string;

  constructor(
    private readonly dataSource: DataSource,
    entity: EntityTarget<T>,
    /** Where the statements run: the primary (poolQuery), unless the repository routes its reads (read replicas). */
    private readonly run: RunSql,
  ) {
    this.metadata = dataSource.getMetadata(entity);
    this.columns = plainColumns(this.metadata, dataSource);
    this.deliveredAsIs = this.columns ? this.columns.map(isDeliveredAsIs) : [];
  }

  /** The records `query` finds (any WHERE, ORDER, LIMIT; no joins), as entities. */
  async read(query: SelectQueryBuilder<T>): Promise<T[]> {
    if (this.columns === false) return query.getMany();
    const [sql, parameters] = this.selectColumns(query).getQueryAndParameters();
    return this.readSql(sql, parameters);
  }

  /** The SQL and parameters of `query` with every column selected as read() selects them; false when this entity takes getMany(). */
  statement(query: SelectQueryBuilder<T>): [string, unknown[]] | false {
    if (this.columns === false) return false;
    return this.selectColumns(query).getQueryAndParameters();
  }

  /**
   * The SQL of `query` with every column selected as read() selects them, to be run again with
   * readSql(); false when this entity takes getMany(), or when the query has parameters of its own.
   */
  selectSql(query: SelectQueryBuilder<T>): string | false {
    if (this.columns === false) return false;
    const [sql, parameters] = this.selectColumns(query).getQueryAndParameters();
    return parameters.length === 0 && sql;
  }

  /** The records a statement of selectSql() finds, as entities (`name`: see RunSql). */
  async readSql(sql: string, parameters: unknown[], name?: string): Promise<T[]> {
    return this.hydrate(await this.run(sql, parameters, name));
  }

  /**
   * The record with this primary key, by a statement built once: building the same SQL with the query
   * builder on every request was a visible share of a `GET /items/{id}` (docs/PERFORMANCE.md).
   */
  async findById(alias: string, primaryKey: string, id: unknown): Promise<T | undefined> {
    const query = () =>
      this.dataSource.createQueryBuilder<T>(this.metadata.target, alias).where(`"${alias}"."${primaryKey}" = :id`, { id });
    if (this.columns === false) return (await query().getOne()) ?? undefined;
    if (this.byId === undefined) {
      const [sql, parameters] = this.selectColumns(query()).getQueryAndParameters();
      // The id is the statement's one parameter ($1), so that the text can be reused for any id.
      if (parameters.length !== 1) throw new Error(`find-by-id of ${this.metadata.name} has ${parameters.length} parameters`);
      this.byId = namedStatement(`${this.metadata.tableName}_by_id`, sql);
    }
    const [record] = await this.readSql(this.byId.sql, [id], this.byId.name);
    return record;
  }

  /**
   * For the write statements a repository builds itself: `RETURNING` every column under its property
   * name, and the entities of the rows it returns. False when the entity takes TypeORM's way.
   */
  get returning(): string | false {
    if (this.columns === false) return false;
    return (this.returningList ??= this.columns.map((entry) => `"${entry.databaseName}" AS "${entry.propertyName}"`).join(', '));
  }

  /**
   * SQL for about how many bytes a row's JSON takes, over a subquery `alias` that selects every column
   * by its property name (selectSql), from what PostgreSQL knows without reading the values: a text's
   * length; a JSON value's or an array's stored size (never less than its JSON: a uuid takes 16 bytes
   * stored, 39 in JSON, hence the factor), or, only when it is stored compressed, its length as text;
   * a fixed allowance for the other fields. Measuring every value as text doubled PostgreSQL's work
   * for a page (docs/PERFORMANCE.md). False when this entity takes getMany().
   */
  rowBytesSql(alias: string): string | false {
    if (this.columns === false) return false;
    let fixed = 2;
    const measured: string[] = [];
    for (const entry of this.columns) {
      fixed += entry.propertyName.length + 4;
      const value = `"${alias}"."${entry.propertyName}"`;
      if (entry.isArray && entry.type === 'uuid') measured.push(`coalesce(pg_column_size(${value}), 0) * 5 / 2`);
      else if (entry.isArray || entry.type === 'jsonb' || entry.type === 'json') measured.push(storedOrTextSize(value));
      else if (entry.type === 'text' || entry.type === 'varchar') measured.push(`coalesce(octet_length(${value}), 4) + 2`);
      else fixed += FIXED_VALUE_BYTES;
    }
    return [String(fixed), ...measured].join(' + ');
  }

  /** The entities of rows that name every column by its property name (`returning`). */
  fromRows(rows: Record<string, unknown>[]): T[] {
    return this.hydrate(rows);
  }

  /** The column of a property that a write may set (undefined: none of that name). */
  writableColumn(propertyName: string): Column | undefined {
    return this.metadata.findColumnWithPropertyName(propertyName);
  }

  /** Selects every plain column under its property name, as hydrate() reads the rows. */
  private selectColumns(query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
    const [first, ...rest] = this.columns as Column[];
    const column = (entry: Column) => `"${query.alias}"."${entry.databaseName}"`;
    query.select(column(first), first.propertyName);
    for (const entry of rest) query.addSelect(column(entry), entry.propertyName);
    return query;
  }

  private hydrate(rows: Record<string, unknown>[]): T[] {
    const columns = this.columns as Column[];
    const asIs = this.deliveredAsIs;
    const driver = this.dataSource.driver;
    return rows.map((row) => {
      const entity = this.metadata.create(undefined, { fromDeserializer: true }) as Record<string, unknown>;
      for (let index = 0; index < columns.length; index++) {
        const entry = columns[index];
        const value = row[entry.propertyName];
        if (value === undefined) continue;
        if (asIs[index]) entity[entry.propertyName] = value;
        else entry.setEntityValue(entity, driver.prepareHydratedValue(value, entry));
      }
      return entity as T;
    });
  }
}

/** SQL: the bytes of a JSON value or array, as stored, or as text when it is stored compressed. */
export const storedOrTextSize = (value: string) =>
  `coalesce(CASE WHEN pg_column_compression(${value}) IS NULL THEN pg_column_size(${value}) ELSE octet_length(${value}::text) END, 4)`;

/** What a value of a fixed-size type (a uuid, a date, a number) takes in JSON at most, give or take. */
const FIXED_VALUE_BYTES = 40;

/** The selectable columns of an entity that RecordReader can hydrate alone; false when getMany() must. */
function plainColumns(metadata: EntityMetadata, dataSource: DataSource): Column[] | false {
  const plain =
    metadata.relations.length === 0 &&
    metadata.embeddeds.length === 0 &&
    !metadata.discriminatorColumn &&
    metadata.afterLoadListeners.length === 0 &&
    dataSource.subscribers.length === 0 &&
    metadata.columns.every((entry) => !entry.isVirtual && !entry.isVirtualProperty);
  return plain && metadata.columns.filter((entry) => entry.isSelect);
}

/**
 * Column types whose values `pg` already delivers as TypeORM's PostgreSQL driver would hydrate them
 * (prepareHydratedValue has no conversion for them, or, for timestamptz, passes pg's Date through):
 * they are assigned directly, sparing a call per value through a chain of type tests. Any other
 * type, or a transformer, takes the driver's path.
 */
const DELIVERED_AS_IS = new Set<unknown>(['text', 'uuid', 'integer', 'bigint', 'double precision', 'boolean', 'jsonb', 'timestamptz']);

function isDeliveredAsIs(entry: Column): boolean {
  return !entry.transformer && DELIVERED_AS_IS.has(entry.type);
}
