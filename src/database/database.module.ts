import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { dataSourceOptions } from './data-source-options.js';

// Any fixed number: the session-level advisory lock that lets one instance migrate at a time.
const MIGRATION_LOCK = 0x6d696772;

/**
 * Applies pending migrations while holding an advisory lock, so that several instances starting at
 * once do not race each other through the same migration.
 */
export async function runMigrations(dataSource: DataSource): Promise<void> {
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

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        if (!config.databaseUrl) throw new Error('DATABASE_URL is not set and no embedded database was started');
        return { ...dataSourceOptions(config.databaseUrl), retryAttempts: 3, retryDelay: 2000 };
      },
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        await runMigrations(dataSource);
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}
