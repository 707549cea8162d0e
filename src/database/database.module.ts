import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type AppConfig, directDatabaseUrl } from '../config/environment.js';
import { dataSourceOptions, type EntityList } from './data-source-options.js';

// Any fixed number: the session-level advisory lock that lets one instance migrate at a time.
const MIGRATION_LOCK = 0x6d696772;

/**
 * Applies pending migrations while holding an advisory lock, so that several instances starting at
 * once do not race each other through the same migration. The lock belongs to a session: behind a
 * transaction-pooling PgBouncer the lock and the migrations would each run on whichever server
 * connection is free, so with a `directUrl` (DATABASE_DIRECT_URL) both go through a short-lived data
 * source of their own that connects to PostgreSQL itself.
 */
export async function runMigrations(dataSource: DataSource, directUrl?: string): Promise<void> {
  if (directUrl && directUrl !== (dataSource.options as { url?: string }).url) {
    const direct = await new DataSource({ ...dataSourceOptions(directUrl), extra: { max: 2, connectionTimeoutMillis: 5000 } }).initialize();
    try {
      return await runMigrations(direct);
    } finally {
      await direct.destroy();
    }
  }
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'all' });
    if (applied.length > 0) new Logger('Database').log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}

/** The connection pool (DATABASE_URL, which may be a PgBouncer), migrated before anyone uses it. */
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig, entities: EntityList): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => {
            if (!config.databaseUrl) throw new Error('DATABASE_URL is not set and no embedded database was started');
            return { ...dataSourceOptions(config.databaseUrl, entities), retryAttempts: 3, retryDelay: 2000 };
          },
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            await runMigrations(dataSource, directDatabaseUrl(config));
            return dataSource;
          },
        }),
      ],
    };
  }
}
