import { DataSource, QueryFailedError } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { runStatement, statement } from '../src/database/statement.js';
import { TestApp } from './support/test-app.js';

/**
 * The statements every write repeats run as named prepared statements on the transaction's own
 * connection (DATABASE_PREPARED_STATEMENTS, on by default), or as plain statements where a
 * transaction-pooling PgBouncer could not keep them: the economy answers the same either way, and a
 * failing statement is the QueryFailedError the retry and the exception filter know.
 */
describe.each([
  ['prepared (the default)', {}, true],
  ['not prepared (DATABASE_PREPARED_STATEMENTS=false)', { DATABASE_PREPARED_STATEMENTS: 'false' }, false],
])('statements %s', (_title, environment: Record<string, string>, prepared: boolean) => {
  let api: TestApp;
  let dataSource: DataSource;
  const sum = statement<{ left: number; right: number }, { sum: number }>(
    'probe_sum',
    (p) => `SELECT ${p.left}::int + ${p.right}::int AS sum`,
  );

  beforeAll(async () => {
    api = await TestApp.start(environment);
    dataSource = api.app.get(DataSource);
  });

  afterAll(async () => {
    await api.close();
  });

  it(`${prepared ? 'are' : 'are not'} kept by the transaction's connection, and answer their rows`, async () => {
    const names = await dataSource.transaction(async (transaction) => {
      const rows = await runStatement(transaction, sum, { left: 2, right: 3 }, prepared);
      expect(rows).toEqual([{ sum: 5 }]);
      // Run again with other values: a prepared statement is parsed once and bound anew.
      expect(await runStatement(transaction, sum, { right: 5, left: 4 }, prepared)).toEqual([{ sum: 9 }]);
      const kept = await transaction.query<Array<{ name: string }>>('SELECT name FROM pg_prepared_statements');
      return kept.map((row) => row.name);
    });
    if (prepared) expect(names).toContain(sum.name);
    else expect(names).not.toContain(sum.name);
  });

  it(`${prepared ? 'prepare' : 'do not prepare'} a record's insert, its versioned update, its read by id and a whole table's count, which answer as before`, async () => {
    const admin = await api.signIn('admin');
    const made = (await api.post<{ uid: string; name: string; version: number }>('/items', { name: 'Prepared read' }, { token: admin }))
      .body;
    expect(made).toMatchObject({ name: 'Prepared read', version: 0 });
    const renamed = await api.put<{ uid: string; name: string; version: number }>(
      `/items/${made.uid}`,
      { name: 'Prepared write', version: 0 },
      { token: admin },
    );
    expect(renamed.status).toBe(200);
    const item = renamed.body;
    expect(item).toMatchObject({ uid: made.uid, name: 'Prepared write', version: 1 });
    // A stale version is refused by the same prepared statement's WHERE, and changes nothing.
    const stale = await api.put(`/items/${made.uid}`, { name: 'Stale', version: 0 }, { token: admin });
    expect(stale.status).toBe(409);
    for (let read = 0; read < 3; read++) {
      expect((await api.get<{ uid: string; name: string }>(`/items/${item.uid}`, { token: admin })).body).toMatchObject(item);
      expect((await api.get<{ count: number }>('/items/count', { token: admin })).body.count).toBeGreaterThan(0);
    }
    // Every connection of the pool at once (a read waits for none of them): the one that served the reads is among them.
    const poolSize = dataSourceOptions('postgres://unused').extra.max as number;
    const kept = await Promise.all(
      Array.from({ length: poolSize }, () =>
        dataSource.transaction((transaction) =>
          transaction.query<Array<{ name: string }>>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'items_%'"),
        ),
      ),
    );
    const names = new Set(kept.flat().map((row) => row.name.replace(/_[0-9a-f]{12}$/, '')));
    if (prepared) expect([...names].sort()).toEqual(['items_by_id', 'items_count', 'items_insert', 'items_update_expected']);
    else expect(names.size).toBe(0);
  });

  it('fail as TypeORM reports a failed statement, and leave the transaction to roll back', async () => {
    const failure = await dataSource
      .transaction((transaction) =>
        runStatement(
          transaction,
          statement<{ divisor: number }>('probe_divide', (p) => `SELECT 1 / ${p.divisor}::int AS quotient`),
          { divisor: 0 },
          prepared,
        ),
      )
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('22012');
  });

  it('settle gifts and awards as the REST API promises: holdings, snapshots and ledger rows', async () => {
    const admin = await api.signIn('admin');
    const alice = await api.signInWithPersona('statements-alice');
    const bob = await api.signInWithPersona('statements-bob');
    const item = (await api.post<{ uid: string }>('/items', { name: 'Gem' }, { token: admin })).body.uid;
    const award = await api.post(
      '/inventories/transaction',
      { type: 'AWARD', personaOneUid: alice.personaUid, personaOneInventoryItems: [{ itemUid: item, quantity: 5 }] },
      { token: admin },
    );
    expect(award.status).toBe(200);
    const gift = (quantity: number) =>
      api.post<{ status: string; personaTwoInventoryItemsAfter: Array<{ quantity: number }> }>(
        '/inventories/transaction',
        {
          type: 'TRADE',
          personaOneUid: alice.personaUid,
          personaTwoUid: bob.personaUid,
          personaOneInventoryItems: [{ itemUid: item, quantity }],
        },
        { token: alice.token },
      );
    // Several gifts, so that a connection runs its prepared statements more than once.
    for (let given = 1; given <= 3; given++) {
      const response = await gift(1);
      expect(response.status).toBe(200);
      expect(response.body.status).toBe('COMPLETED');
      expect(response.body.personaTwoInventoryItemsAfter).toEqual([expect.objectContaining({ quantity: given })]);
    }
    const short = await gift(3);
    expect(short.status).toBe(409);
    const inventory = async (token: string) =>
      (await api.get<Array<{ personaUid: string; itemUid: string; quantity: number }>>('/inventories', { token })).body.map(
        ({ personaUid, itemUid, quantity }) => ({ personaUid, itemUid, quantity }),
      );
    expect(await inventory(alice.token)).toEqual([{ personaUid: alice.personaUid, itemUid: item, quantity: 2 }]);
    expect(await inventory(bob.token)).toEqual([{ personaUid: bob.personaUid, itemUid: item, quantity: 3 }]);
    const ledger = await dataSource.query<Array<{ personaUid: string; total: number }>>(
      'SELECT "personaUid", sum(delta)::int AS total FROM inventory_ledger WHERE "itemUid" = $1 GROUP BY "personaUid" ORDER BY total',
      [item],
    );
    expect(ledger).toEqual([
      { personaUid: alice.personaUid, total: 2 },
      { personaUid: bob.personaUid, total: 3 },
    ]);
  });
});
