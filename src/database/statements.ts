import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { type EntityManager, QueryFailedError } from 'typeorm';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';

/**
 * Runs the statements every write repeats, and the commonest reads (a record by id, a whole table's
 * count), as named prepared statements (DATABASE_PREPARED_STATEMENTS):
 * PostgreSQL parses and plans such a statement once per connection instead of on every call, which for
 * the economy's settling statement was most of its cost (docs/PERFORMANCE.md). TypeORM has no way to
 * name a statement, hence this class, which speaks to the transaction's own pg client. Errors are
 * TypeORM's QueryFailedError either way, as the retry on serialization failures and the exception filter
 * expect. A name stands for one SQL text for the life of the process; the text must name its result
 * columns (no final `SELECT *`), so that a column added by a later migration cannot change a prepared
 * statement's result.
 */
@Injectable()
export class Statements {
  private readonly prepare: boolean;

  constructor(@InjectConfig() config: AppConfig) {
    this.prepare = config.preparedStatements;
  }

  /** The rows of `sql` run in `transaction`, prepared as `name` where statements are prepared. */
  async run<R>(transaction: EntityManager, name: string, sql: string, parameters: unknown[]): Promise<R[]> {
    const runner = transaction.queryRunner;
    if (!this.prepare || !runner) return transaction.query<R[]>(sql, parameters);
    const client = (await runner.connect()) as pg.PoolClient;
    try {
      return (await client.query(this.config(name, sql, parameters))).rows as R[];
    } catch (error) {
      throw new QueryFailedError(sql, parameters, error as Error);
    }
  }

  /** What pg's `query()` takes for `sql`: the named statement `name` where statements are prepared (a read on a pool). */
  config(name: string | undefined, sql: string, parameters: unknown[]): pg.QueryConfig {
    return this.prepare && name !== undefined ? { name, text: sql, values: parameters } : { text: sql, values: parameters };
  }
}

/** A statement built at run time, with its prepared statement's name. */
export interface NamedStatement {
  sql: string;
  name: string;
}

/** `sql` named after `prefix` and a digest of its text, so that one name never stands for two texts. */
export function namedStatement(prefix: string, sql: string): NamedStatement {
  return { sql, name: `${prefix}_${createHash('sha1').update(sql).digest('hex').slice(0, 12)}` };
}
