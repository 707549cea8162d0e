import { DataSource } from 'typeorm';
import { decodeJwt } from 'jose';
import { ENTITIES } from '../src/entities.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { Identities1764600000000 } from '../src/database/migrations/1764600000000-Identities.js';
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
    const dataSource = await new DataSource(dataSourceOptions(api.databaseUrl, ENTITIES)).initialize();
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
    const [{ uid: user }] = (await api.database.query(`INSERT INTO users (provider, subject) VALUES ('idp1', 'twin') RETURNING uid`)).rows;
    const identity = (provider: string, subject: string) =>
      insert(`INSERT INTO user_identities ("userUid", provider, subject) VALUES ('${user}', '${provider}', '${subject}')`);
    expect(await identity('idp1', 'twin')).toBe('accepted');
    expect(await identity('idp1', 'twin')).toBe('23505'); // an identity is one user's
    expect(await identity('idp1', 'other-twin')).toBe('23505'); // one idp1 identity per user
    expect(await identity('device', 'a')).toBe('accepted');
    expect(await identity('device', 'b')).toBe('accepted'); // devices are many
    expect(await identity('steam', 'x')).toBe('23514');
  });
});

describe('the identities migration', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start();
  });
  afterAll(() => api.close());

  it('gives every existing user the identity they signed in with, and every open session its identity', async () => {
    const dataSource = await new DataSource(dataSourceOptions(api.databaseUrl, ENTITIES)).initialize();
    const runner = dataSource.createQueryRunner();
    try {
      await new Identities1764600000000().down(runner);
      // Rows as the previous version wrote them.
      const [alice, bob] = (
        await runner.query(
          `INSERT INTO users (provider, subject, name, "dateCreated") VALUES ('idp1', 'legacy-alice', 'Alice', '2026-01-02T03:04:05.678Z'),
           ('idp2', 'legacy-bob', NULL, now()) RETURNING uid`,
        )
      ).map((row: { uid: string }) => row.uid);
      await runner.query(`INSERT INTO personas ("userUid", name) VALUES ($1, 'Alice'), ($2, 'Bob')`, [alice, bob]);
      const [{ uid: session }] = await runner.query(
        `INSERT INTO auth_sessions ("userUid", provider, "expiresAt") VALUES ($1, 'idp1', now() + interval '1 day') RETURNING uid`,
        [alice],
      );
      await new Identities1764600000000().up(runner);

      const identities = await runner.query(
        `SELECT "userUid", provider, subject, "dateCreated" FROM user_identities WHERE "userUid" = ANY($1::uuid[]) ORDER BY provider`,
        [[alice, bob]],
      );
      expect(identities).toEqual([
        { userUid: alice, provider: 'idp1', subject: 'legacy-alice', dateCreated: new Date('2026-01-02T03:04:05.678Z') },
        { userUid: bob, provider: 'idp2', subject: 'legacy-bob', dateCreated: expect.any(Date) },
      ]);
      const [opened] = await runner.query(
        `SELECT i.subject FROM auth_sessions s JOIN user_identities i ON i.uid = s."identityUid" WHERE s.uid = $1`,
        [session],
      );
      expect(opened).toEqual({ subject: 'legacy-alice' });
      expect(await runner.query(`SELECT provider, subject, name FROM users WHERE uid = $1`, [alice])).toEqual([
        { provider: 'idp1', subject: 'legacy-alice', name: 'Alice' },
      ]);
    } finally {
      await runner.release();
      await dataSource.destroy();
    }
    // The next sign-in finds the same user, with the persona they had.
    const token = await api.signIn('legacy-alice');
    const personas = await api.found<Array<{ userUid: string; name: string }>>('/personas', token);
    expect(personas).toEqual([expect.objectContaining({ name: 'Alice' })]);
    expect(decodeJwt(token).sub).toBe(personas[0].userUid);
  });
});
