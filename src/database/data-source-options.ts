import type { DataSourceOptions } from 'typeorm';
import { poolRecordingDriver } from './pg-driver.js';
import { MIGRATIONS } from './migrations/index.js';

/** Entity classes (src/entities.ts lists the service's). */
export type EntityList = Array<new (...args: never[]) => object>;

/**
 * Connection settings shared by the service, the TypeORM CLI and the test set-up. The entities are
 * given by the caller (src/entities.ts lists them): the data layer knows no feature.
 */
export function dataSourceOptions(url: string, entities: EntityList = []): Extract<DataSourceOptions, { type: 'postgres' }> {
  return {
    type: 'postgres',
    driver: poolRecordingDriver(),
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // Schema changes only through migrations, reviewed and versioned with the code.
    synchronize: false,
    migrationsRun: false,
    // gen_random_uuid() is built into PostgreSQL 13+; no uuid-ossp extension to install.
    uuidExtension: 'pgcrypto',
    applicationName: 'game-backend',
    extra: {
      max: 10,
      // Fail fast when the database is away, so that clients get a 503 instead of a hung request.
      connectionTimeoutMillis: 5000,
      statement_timeout: 15000,
      idle_in_transaction_session_timeout: 30000,
    },
  };
}
