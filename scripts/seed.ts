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
import { DataSource } from 'typeorm';
import { EnvironmentError, loadConfig } from '../src/config/environment.js';
import { openToolDatabase } from '../src/database/database-location.js';
import { ENTITIES } from '../src/entities.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { runMigrations } from '../src/database/database.module.js';
import { createMediaStore } from '../src/media/media.module.js';
import { seedDemoCatalog } from '../src/seed/seed-demo-catalog.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.isProduction && !process.argv.includes('--production')) {
    console.error('NODE_ENV=production: the demo catalog is for development and staging. Pass --production to load it anyway.');
    process.exit(1);
  }

  const database = await openToolDatabase(config);
  const dataSource = new DataSource(dataSourceOptions(database.url, ENTITIES));
  try {
    await dataSource.initialize();
    await runMigrations(dataSource);
    // The icons go to the store the service serves from (MEDIA_DIR or MEDIA_S3_BUCKET).
    const report = await seedDemoCatalog(dataSource, { store: await createMediaStore(config), baseUrl: config.media.baseUrl });
    console.log(`Demo catalog in ${database.description}:`);
    for (const [kind, { total, added }] of Object.entries(report)) {
      console.log(`  ${kind}: ${added} added, ${total - added} already there`);
    }
    console.log('Browse it at /docs: sign in (npm run dev-token), Authorize, then GET /items.');
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof EnvironmentError ? error.message : error);
  process.exit(1);
});
