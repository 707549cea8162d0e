import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { parseEnvironment } from './src/config/environment.js';
import { dataSourceOptions } from './src/database/data-source-options.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './src/database/embedded-postgres.js';

/**
 * The DataSource of the TypeORM CLI (`npm run migration:run`, `migration:revert`, `migration:generate`).
 * Like the service, it uses DATABASE_URL or else the embedded PostgreSQL in DATA_DIR, which it stops
 * when the CLI closes the DataSource.
 */
if (existsSync('.env')) process.loadEnvFile('.env');
const environment = parseEnvironment();

let embedded: EmbeddedDatabase | undefined;
if (!environment.databaseUrl) {
  embedded = await startEmbeddedPostgres({ directory: join(environment.dataDir, 'postgres') });
}

class CliDataSource extends DataSource {
  override async destroy(): Promise<void> {
    await super.destroy();
    await embedded?.stop();
  }
}

export default new CliDataSource(dataSourceOptions(environment.databaseUrl ?? embedded!.url));
