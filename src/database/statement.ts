import { createHash } from 'node:crypto';
import type pg from 'pg';
import { type DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { poolOf } from './pg-driver.js';

/**
 * A named SQL statement: the one way the service writes SQL that TypeORM's query builder cannot say
 * (upserts with arithmetic, CTEs that write, SKIP LOCKED claims, advisory locks), or that a measured
 * hot path runs as a prepared statement. Its parameters are named and typed: the text takes them from
 * `p.<name>` and a run gives them as an object, so no statement counts positions by hand.
 *
 * ```ts
 * const holdings = statement<{ personas: string[]; items: string[] }, InventoryRow>('holdings', (p) =>
 *   `SELECT ... WHERE "personaUid" = ANY(${p.personas}::uuid[]) AND "itemUid" = ANY(${p.items}::uuid[])`);
 * const rows = await runStatement(transaction, holdings, { personas, items });   // or on the DataSource
 * ```
 *
 * The name carries a digest of the text, so that one name never stands for two texts: it is also the
 * prepared statement's name where statements are prepared (DATABASE_PREPARED_STATEMENTS).
 */
export interface Statement<P extends object, R = Record<string, unknown>> {
  readonly name: string;
  readonly text: string;
  /** The parameters in the order of their placeholders ($1, $2, ...). */
  readonly parameters: ReadonlyArray<keyof P & string>;
  /** Only for the type checker: what a row of its result holds. */
  readonly row?: R;
}

/** What a statement's text builder gets: each parameter's placeholder, by name. */
export type Placeholders<P extends object> = { readonly [K in keyof P]-?: string };

export function statement<P extends object, R = Record<string, unknown>>(
  name: string,
  build: (p: Placeholders<P>) => string,
): Statement<P, R> {
  const parameters: string[] = [];
  const placeholders = new Proxy(
    {},
    {
      get: (_target, key) => {
        if (typeof key !== 'string') throw new Error(`statement ${name}: a parameter must be named by a string`);
        let index = parameters.indexOf(key);
        if (index < 0) index = parameters.push(key) - 1;
        return `$${index + 1}`;
      },
    },
  ) as Placeholders<P>;
  const text = build(placeholders);
  const digest = createHash('sha1').update(text).digest('hex').slice(0, 12);
  return { name: `${name}_${digest}`, text, parameters: parameters as Array<keyof P & string> };
}

/** The statement's values in placeholder order. */
export function valuesOf<P extends object>(statement: Statement<P, unknown>, values: P): unknown[] {
  return statement.parameters.map((name) => values[name]);
}

/** pg's form of a statement run: named (prepared once per connection) when `prepared`. */
export function queryConfig<P extends object>(statement: Statement<P, unknown>, values: P, prepared: boolean): pg.QueryConfig {
  const config = { text: statement.text, values: valuesOf(statement, values) };
  return prepared ? { ...config, name: statement.name } : config;
}

/**
 * Runs `statement` in a transaction (on its own connection: TypeORM's query runner hands out its pg
 * client), or, given the DataSource or a manager outside any transaction, on a connection of TypeORM's
 * pool taken for it alone (DataSource.query would add a logger call and a result wrapper per
 * statement). Prepared when `prepared`. Errors come as TypeORM's QueryFailedError either way, as the
 * retry on serialization failures and the exception filter expect.
 */
export async function runStatement<P extends object, R>(
  on: EntityManager | DataSource,
  statement: Statement<P, R>,
  values: P,
  prepared = false,
): Promise<R[]> {
  const config = queryConfig(statement, values, prepared);
  const runner = 'queryRunner' in on ? on.queryRunner : undefined;
  if (runner) return rowsOf<R>((await runner.connect()) as pg.PoolClient, config);
  return runSql<R>('connection' in on ? on.connection : on, config);
}

/** Runs SQL a query builder built (`getQueryAndParameters()`) outside any transaction, as runStatement does. */
export async function runSql<R>(dataSource: DataSource, config: pg.QueryConfig): Promise<R[]> {
  const pool = poolOf(dataSource);
  if (pool) return rowsOf<R>(pool, config);
  const runner = dataSource.createQueryRunner();
  try {
    const client = (await runner.connect()) as pg.PoolClient;
    return await rowsOf<R>(client, config);
  } finally {
    await runner.release();
  }
}

async function rowsOf<R>(client: pg.Pool | pg.PoolClient, config: pg.QueryConfig): Promise<R[]> {
  try {
    return (await client.query(config)).rows as R[];
  } catch (error) {
    throw new QueryFailedError(config.text, config.values ?? [], error as Error);
  }
}
