// Starts one real PostgreSQL for the whole run and migrates a template database once; every e2e file
// then clones the template (CREATE DATABASE … TEMPLATE, well under a second) and never sees another
// file's rows. Plain .mjs: jest cannot load TypeScript here, so tsx imports the sources.
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

export const TEMPLATE_DATABASE = 'game_backend_template';

export default async function globalSetup() {
  const { startEmbeddedPostgres } = await tsImport('../../src/database/embedded-postgres.ts', import.meta.url);
  const { MIGRATIONS } = await tsImport('../../src/database/migrations/index.ts', import.meta.url);
  const { DataSource } = await import('typeorm');

  const root = join(tmpdir(), 'game-backend-tests', `run-${process.pid}-${Date.now()}`);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const database = await startEmbeddedPostgres({ directory: join(root, 'postgres'), database: TEMPLATE_DATABASE });

  const template = new DataSource({ type: 'postgres', url: database.url, migrations: MIGRATIONS });
  await template.initialize();
  await template.runMigrations({ transaction: 'all' });
  await template.destroy();

  globalThis.__testDatabase = { database, root };
  // The superuser's, to create and drop each file's database; the service's role's (of the template),
  // which the test apps connect as, as the service does.
  process.env.TEST_DATABASE_ADMIN_URL = database.adminUrl;
  process.env.TEST_DATABASE_URL = database.url;
  process.env.TEST_TEMPLATE_DATABASE = TEMPLATE_DATABASE;
  // The development identity provider keeps its key pair here; the tests sign tokens with it.
  process.env.TEST_DATA_DIR = join(root, 'data');
}
