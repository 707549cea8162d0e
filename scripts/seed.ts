/**
 * `npm run seed`: loads the demo catalog (src/seed/demo-catalog.ts: items with stats and parents,
 * achievements, media assets, texts in English and Brazilian Portuguese) into the database the service
 * would use: DATABASE_URL, or else the embedded PostgreSQL in DATA_DIR, as ormconfig.ts does. Running
 * it again adds nothing. Pending migrations are applied first, so it also works on a fresh clone.
 *
 * While `npm start` runs on the embedded database, the seed connects to that server rather than
 * starting one of its own on the same folder.
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { EnvironmentError, parseEnvironment, redactUrl } from '../src/config/environment.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { runMigrations } from '../src/database/database.module.js';
import { type EmbeddedDatabase, runningEmbeddedPostgresUrl, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { seedDemoCatalog } from '../src/seed/seed-demo-catalog.js';

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const environment = parseEnvironment();
  if (environment.isProduction && !process.argv.includes('--production')) {
    console.error('NODE_ENV=production: the demo catalog is for development and staging. Pass --production to load it anyway.');
    process.exit(1);
  }

  let url = environment.databaseUrl;
  let where = url ? redactUrl(url) : '';
  let embedded: EmbeddedDatabase | undefined;
  if (!url) {
    const directory = join(environment.dataDir, 'postgres');
    url = await runningEmbeddedPostgresUrl(directory);
    where = `the running embedded PostgreSQL in ${directory}`;
    if (!url) {
      embedded = await startEmbeddedPostgres({ directory });
      url = embedded.url;
      where = `embedded PostgreSQL in ${directory}`;
    }
  }

  const dataSource = new DataSource(dataSourceOptions(url));
  try {
    await dataSource.initialize();
    await runMigrations(dataSource);
    const report = await seedDemoCatalog(dataSource);
    console.log(`Demo catalog in ${where}:`);
    for (const [kind, { total, added }] of Object.entries(report)) {
      console.log(`  ${kind}: ${added} added, ${total - added} already there`);
    }
    console.log('Browse it at /docs: sign in (npm run dev-token), Authorize, then GET /items.');
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof EnvironmentError ? error.message : error);
  process.exit(1);
});
