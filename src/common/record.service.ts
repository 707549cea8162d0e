import { HttpStatus } from '@nestjs/common';
import type { DeepPartial, EntityManager, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Caller } from './auth.decorators.js';
import { ApiException, ErrorCode, notFound } from './errors.js';
import type { Filter, ListQuery } from './list-query.js';
import type { RecordEntity } from './record.entity.js';

export const ALIAS = 'record';

/**
 * What every resource shares: list with limit/skip/sort/filters, count, find-or-404, the atomic
 * versioned update, delete and truncate. Resources extend it and override `scope` to hide what a
 * caller may not see; their own rules (join, unlock, trades) stay in their own services.
 */
export abstract class RecordService<T extends RecordEntity> {
  /** How the resource is named in messages ("item", "session"). */
  protected abstract readonly recordName: string;

  /** The columns read() selects and hydrates, worked out on first use; false: use getMany(). */
  private plainColumns?: ColumnMetadata[] | false;

  /** Per plain column, whether hydrate() may take pg's value as it is (isDeliveredAsIs). */
  private deliveredAsIs?: boolean[];

  /** findByIdStatement()'s SQL once built; false: this resource's find-by-id depends on the caller. */
  private findByIdSql?: string | false;

  constructor(protected readonly repository: Repository<T>) {}

  /** Restricts a query to the records the caller may see. The default: everything (catalog data). */
  protected scope(_query: SelectQueryBuilder<T>, _caller: Caller | undefined): void {}

  async findAll(list: ListQuery, caller: Caller | undefined): Promise<T[]> {
    const query = this.filtered(list, caller).limit(list.limit).offset(list.skip);
    for (const { field, direction } of list.order) query.addOrderBy(column(field), direction);
    return this.read(query);
  }

  async count(list: ListQuery, caller: Caller | undefined): Promise<number> {
    // COUNT(*), not getCount(): TypeORM counts COUNT(DISTINCT uid) in case joins repeat rows, and
    // PostgreSQL then sorts every matching uid (0.48 ms instead of 0.15 ms for 1,000 items). These
    // queries never join (scopes filter with subqueries), so every row is one record.
    const counted = await this.filtered(list, caller).select('COUNT(*)', 'count').getRawOne<{ count: string }>();
    return Number(counted?.count ?? 0);
  }

  async findOne(uid: string, caller: Caller | undefined): Promise<T> {
    const statement = this.findByIdStatement();
    const [record] = statement
      ? this.hydrate(await this.repository.query<Record<string, unknown>[]>(statement, [uid]))
      : await this.read(this.findByIdQuery(uid, caller));
    if (!record) throw notFound(this.recordName, uid);
    return record;
  }

  private findByIdQuery(uid: string, caller: Caller | undefined): SelectQueryBuilder<T> {
    const query = this.repository.createQueryBuilder(ALIAS).where(`${column('uid')} = :uid`, { uid });
    this.scope(query, caller);
    return query;
  }

  /**
   * The SQL of find-by-id, built once, for resources that show every caller the same records (their
   * service keeps the default scope): catalog data, the hottest reads. Building it with the query
   * builder took 60 µs of a 500 µs `GET /items/{id}` (the benchmark's profile), for the same text each
   * time. Undefined for scoped resources, whose SQL depends on the caller.
   */
  private findByIdStatement(): string | undefined {
    if (this.findByIdSql === undefined) {
      const unscoped = this.scope === RecordService.prototype.scope && this.plainColumnsOf() !== false;
      const [sql, parameters] = unscoped ? this.selectPlain(this.findByIdQuery('uid', undefined)).getQueryAndParameters() : [];
      // The uid must be the statement's one parameter ($1), or the statement is not reused.
      this.findByIdSql = sql !== undefined && parameters?.length === 1 ? sql : false;
    }
    return this.findByIdSql || undefined;
  }

  /**
   * The records a SELECT of this resource finds, as entities: what getMany() returns, for a fraction of
   * its cost. TypeORM's generic result transformer (rows grouped by primary key in case joins repeat
   * them, relation passes, an alias lookup per column and row) took as long as the rest of the request
   * for a page of 100 items, and its garbage more in GC; these queries never join. Each entity is
   * built as TypeORM builds it: the class's constructor (fields in declaration order, hence the JSON
   * key order), then every selected column through the driver's prepareHydratedValue (dates, arrays,
   * transformers). An entity with relations, embedded columns or load listeners takes getMany().
   */
  protected async read(query: SelectQueryBuilder<T>): Promise<T[]> {
    if (this.plainColumnsOf() === false) return query.getMany();
    return this.hydrate(await this.selectPlain(query).getRawMany<Record<string, unknown>>());
  }

  private plainColumnsOf(): ColumnMetadata[] | false {
    return (this.plainColumns ??= plainColumns(this.repository));
  }

  /** Selects every plain column under its property name, as hydrate() reads the rows. */
  private selectPlain(query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
    const [first, ...rest] = this.plainColumnsOf() as ColumnMetadata[];
    query.select(column(first.databaseName), first.propertyName);
    for (const entry of rest) query.addSelect(column(entry.databaseName), entry.propertyName);
    return query;
  }

  private hydrate(rows: Record<string, unknown>[]): T[] {
    const plain = this.plainColumnsOf() as ColumnMetadata[];
    const { metadata } = this.repository;
    const driver = this.repository.manager.connection.driver;
    const asIs = (this.deliveredAsIs ??= plain.map(isDeliveredAsIs));
    return rows.map((row) => {
      const entity = metadata.create(undefined, { fromDeserializer: true }) as Record<string, unknown>;
      for (let index = 0; index < plain.length; index++) {
        const entry = plain[index];
        const value = row[entry.propertyName];
        if (value === undefined) continue;
        if (asIs[index]) entity[entry.propertyName] = value;
        else entry.setEntityValue(entity, driver.prepareHydratedValue(value, entry));
      }
      return entity as T;
    });
  }

  /**
   * The record, if the caller may see it, locked (`FOR UPDATE`) until `manager`'s transaction ends:
   * for writes that decide on the record's current state (join, leave, an update that re-seats).
   */
  protected async lockOne(manager: EntityManager, uid: string, caller: Caller | undefined): Promise<T> {
    const query = manager
      .createQueryBuilder(this.repository.target, ALIAS)
      .where(`${column('uid')} = :uid`, { uid })
      .setLock('pessimistic_write');
    this.scope(query, caller);
    const record = await query.getOne();
    if (!record) throw notFound(this.recordName, uid);
    return record;
  }

  /**
   * `UPDATE … SET …, version = version + 1 WHERE uid = $1 [AND version = $2] RETURNING *` as one
   * statement, so that of two writes stating the same version exactly one wins (CONTRACT.md section 3).
   */
  protected async updateVersioned(
    uid: string,
    patch: QueryDeepPartialEntity<T>,
    expectedVersion: number | undefined,
    manager: EntityManager = this.repository.manager,
  ): Promise<T> {
    const update = manager
      .createQueryBuilder()
      .update(this.repository.target)
      .set({ ...patch, version: () => 'version + 1', dateModified: () => 'now()' } as QueryDeepPartialEntity<T>)
      .where('uid = :uid', { uid });
    if (expectedVersion !== undefined) update.andWhere('version = :expectedVersion', { expectedVersion });
    const result = await update.returning('*').execute();
    const [row] = result.raw as ObjectLiteral[];
    if (row) return this.repository.create(row as DeepPartial<T>);

    const current = await manager
      .createQueryBuilder(this.repository.target, ALIAS)
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

  protected async deleteOne(uid: string, manager: EntityManager = this.repository.manager): Promise<void> {
    const result = await manager.createQueryBuilder().delete().from(this.repository.target).where('uid = :uid', { uid }).execute();
    if (!result.affected) throw notFound(this.recordName, uid);
  }

  /** Removes every record. DELETE rather than TRUNCATE: it honours foreign keys and locks rows, not the table. */
  async truncate(): Promise<void> {
    await this.repository.createQueryBuilder().delete().from(this.repository.target).execute();
  }

  private filtered(list: ListQuery, caller: Caller | undefined): SelectQueryBuilder<T> {
    const query = this.repository.createQueryBuilder(ALIAS);
    this.scope(query, caller);
    list.filters.forEach((filter, index) => applyFilter(query, filter, `filter${index}`));
    return query;
  }
}

/** The selectable columns of an entity that read() can hydrate alone; false when getMany() must. */
function plainColumns<T extends ObjectLiteral>(repository: Repository<T>): ColumnMetadata[] | false {
  const { metadata, manager } = repository;
  const plain =
    metadata.relations.length === 0 &&
    metadata.embeddeds.length === 0 &&
    !metadata.discriminatorColumn &&
    metadata.afterLoadListeners.length === 0 &&
    manager.connection.subscribers.length === 0 &&
    metadata.columns.every((entry) => !entry.isVirtual && !entry.isVirtualProperty);
  return plain && metadata.columns.filter((entry) => entry.isSelect);
}

/**
 * Column types whose values `pg` already delivers as TypeORM's PostgreSQL driver would hydrate them
 * (prepareHydratedValue has no conversion for them, or, for timestamptz, passes pg's Date through):
 * hydrate() assigns those directly. A page of 100 items spent 200 µs in the generic path, one call per
 * value through a chain of type tests (the benchmark's profile). Any other type, or a transformer,
 * takes the driver's path.
 */
const DELIVERED_AS_IS = new Set<unknown>(['text', 'uuid', 'integer', 'bigint', 'double precision', 'boolean', 'jsonb', 'timestamptz']);

function isDeliveredAsIs(entry: ColumnMetadata): boolean {
  return !entry.transformer && DELIVERED_AS_IS.has(entry.type);
}

/** A field of the main alias, quoted. Field names come from a resource's whitelist, never from input. */
export function column(field: string): string {
  return `"${ALIAS}"."${field}"`;
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
