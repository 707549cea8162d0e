import pg from 'pg';
import type { DataSource } from 'typeorm';
import { SERVICE_TYPES } from './timestamptz.js';

const pools = new WeakMap<object, pg.Pool>();

/**
 * The pg module, given to TypeORM as its `driver` option, whose Pool remembers itself: a read outside
 * any transaction then runs on that pool with pg's own `pool.query()` (poolOf, runSql) rather than in a
 * QueryRunner, which makes an EntityManager, a broadcaster and bookkeeping for every statement, a
 * measured share of a read by id (docs/PERFORMANCE.md). Both sides are public API: TypeORM's `driver`
 * option (it defaults to `pg`) and pg's Pool. One module per data source, so each finds its own pool.
 * Its clients read timestamptz with parseTimestamptz.
 */
export function poolRecordingDriver(): typeof pg {
  const driver = { ...pg };
  driver.Pool = class extends pg.Pool {
    constructor(config?: pg.PoolConfig) {
      super({ ...config, types: SERVICE_TYPES });
      pools.set(driver, this);
    }
  };
  return driver;
}

/** The pool TypeORM opened for `dataSource`, if its options came from dataSourceOptions(). */
export function poolOf(dataSource: DataSource): pg.Pool | undefined {
  const { driver } = dataSource.options as { driver?: object };
  return driver && pools.get(driver);
}
