import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/environment.js';
import { openToolDatabase } from './src/database/database-location.js';
import { ENTITIES } from './src/entities.js';
import { dataSourceOptions } from './src/database/data-source-options.js';

/**
 * The DataSource of the TypeORM CLI (`npm run migration:run`, `migration:revert`, `migration:generate`),
 * on the database the service would use (openToolDatabase: a running service's embedded server is
 * shared, not stopped). An embedded server started for the CLI stops when the CLI closes the DataSource.
 */
const database = await openToolDatabase(loadConfig());

class CliDataSource extends DataSource {
  override async destroy(): Promise<void> {
    await super.destroy();
    await database.close();
  }
}

export default new CliDataSource(dataSourceOptions(database.url, ENTITIES));
