import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { TestApp } from './support/test-app.js';

describe('database schema', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start();
  });
  afterAll(() => api.close());

  // If an entity changes without a migration (or the reverse), `npm run migration:generate` would
  // produce surprise statements, such as dropping a foreign key the entities forgot to declare.
  it('matches the entities exactly after the migrations have run', async () => {
    const dataSource = await new DataSource(dataSourceOptions(api.databaseUrl)).initialize();
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('enforces the catalog rules in the database too', async () => {
    const insert = (sql: string) =>
      api.database.query(sql).then(
        () => 'accepted',
        (error: { code: string }) => error.code,
      );
    expect(await insert(`INSERT INTO items (name, cost) VALUES ('negative', -1)`)).toBe('23514');
    expect(await insert(`INSERT INTO items (name, "parentUID") VALUES ('orphan', gen_random_uuid())`)).toBe('23503');
    expect(await insert(`INSERT INTO users (provider, subject) VALUES ('idp1', 'twin'), ('idp1', 'twin')`)).toBe('23505');
  });
});
