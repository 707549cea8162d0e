import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { parseEnvironment } from './src/config/environment.js';
import { dataSourceOptions } from './src/database/data-source-options.js';
import { type EmbeddedDatabase, runningEmbeddedPostgresUrl, startEmbeddedPostgres } from './src/database/embedded-postgres.js';

/**
 * The DataSource of the TypeORM CLI (`npm run migration:run`, `migration:revert`, `migration:generate`).
 * Like the service, it uses DATABASE_URL or else the embedded PostgreSQL in DATA_DIR: the one a running
 * service started, if there is one (starting another would stop that one's server as an orphan), or
 * else one of its own, which it stops when the CLI closes the DataSource.
 */
if (existsSync('.env')) process.loadEnvFile('.env');
const environment = parseEnvironment();

let embedded: EmbeddedDatabase | undefined;
let url = environment.databaseUrl;
if (!url) {
  const directory = join(environment.dataDir, 'postgres');
  url = await runningEmbeddedPostgresUrl(directory);
  if (!url) {
    embedded = await startEmbeddedPostgres({ directory });
    url = embedded.url;
  }
}

class CliDataSource extends DataSource {
  override async destroy(): Promise<void> {
    await super.destroy();
    await embedded?.stop();
  }
}

export default new CliDataSource(dataSourceOptions(url));
