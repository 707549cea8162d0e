import { dataSourceOptions } from '../src/database/data-source-options.js';
import { TestApp, type TestResponse } from './support/test-app.js';
import type { BodyOrError, InventoryItemBody, ItemBody, ItemQuantityBody, SnapshotBody, TransactionBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';

/**
 * The economy under concurrency: no item is ever duplicated or lost. Each scenario fires many
 * transactions at a time (burst) and then audits the database: per item, the quantities held equal the AWARD and
 * REMOVAL deltas of the ledger, trades net to zero, no quantity is negative, and every persona's holding
 * equals the sum of its ledger entries (docs/CONTRACT.md section 7, "Transactions"). The figures (requests,
 * successes, 409s, other statuses, retries from /metrics) are printed for the report.
 */

type TransactionResponse = TestResponse<BodyOrError<TransactionBody>>;

interface Player {
  token: string;
  personaUid: string;
}

/**
 * What a transaction should have moved, as "persona/item/delta" strings: in a TRADE persona one gives its
 * list to persona two and persona two gives its list to persona one; AWARD adds, REMOVAL takes away.
 */
function netMovements(transaction: {
  type: string;
  personaOneUid: string;
  personaTwoUid: string | null;
  personaOneInventoryItems: ItemQuantityBody[];
  personaTwoInventoryItems: ItemQuantityBody[];
}): string[] {
  const deltas = new Map<string, number>();
  const move = (personaUid: string, itemUid: string, delta: number) =>
    deltas.set(`${personaUid}/${itemUid}`, (deltas.get(`${personaUid}/${itemUid}`) ?? 0) + delta);
  for (const { itemUid, quantity } of transaction.personaOneInventoryItems) {
    if (transaction.type === 'AWARD') move(transaction.personaOneUid, itemUid, quantity);
    else if (transaction.type === 'REMOVAL') move(transaction.personaOneUid, itemUid, -quantity);
    else {
      move(transaction.personaOneUid, itemUid, -quantity);
      move(transaction.personaTwoUid!, itemUid, quantity);
    }
  }
  if (transaction.type === 'TRADE') {
    for (const { itemUid, quantity } of transaction.personaTwoInventoryItems) {
      move(transaction.personaTwoUid!, itemUid, -quantity);
      move(transaction.personaOneUid, itemUid, quantity);
    }
  }
  return [...deltas].filter(([, delta]) => delta !== 0).map(([key, delta]) => `${key}/${delta}`);
}

/** mulberry32: a small seeded generator, so that a failing run can be replayed exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs `requests` with at most twice the pool's connections in flight; answers in their order. Sent all
 * at once, the last of 200 waited for a connection past the pool's timeout on a loaded machine and was
 * answered 503 (as the service should); what these scenarios check is the contention between the
 * transactions that run, which the pool caps at its size whatever the number sent.
 */
async function burst<T>(requests: Array<() => Promise<T>>): Promise<T[]> {
  const inFlight = 2 * (dataSourceOptions('postgres://unused').extra.max as number);
  const answers: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, requests.length) }, async () => {
      while (next < requests.length) {
        const index = next++;
        answers[index] = await requests[index]();
      }
    }),
  );
  return answers;
}

/** Each scenario's own budget; the whole file should stay under about a minute on two cores. */
const SCENARIO_TIMEOUT = 60_000;

const RETRIES_METRIC = /^db_transaction_retries_total\{operation="inventory_transaction"\} (\d+(?:\.\d+)?)$/m;

describe('economy under concurrency', () => {
  let api: TestApp;
  let admin: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api.close();
  });

  async function createItem(name: string): Promise<string> {
    const response = await api.post<ItemBody>('/items', { name }, { token: admin });
    expect(response.status).toBe(201);
    return response.body.uid;
  }

  async function award(personaUid: string, itemUid: string, quantity: number): Promise<void> {
    const response = await api.post<TransactionBody>(
      '/inventories/transaction',
      { type: 'AWARD', personaOneUid: personaUid, personaOneInventoryItems: [{ itemUid, quantity }] },
      { token: admin },
    );
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('COMPLETED');
  }

  function transact(body: Record<string, unknown>, token: string): Promise<TransactionResponse> {
    return api.post('/inventories/transaction', body, { token });
  }

  /** db_transaction_retries_total{operation="inventory_transaction"}, 0 while absent (no retry yet). */
  async function retriesSoFar(): Promise<number> {
    const response = await api.get<string>('/metrics');
    expect(response.status).toBe(200);
    const match = RETRIES_METRIC.exec(String(response.body));
    return match ? Number(match[1]) : 0;
  }

  /** Tallies the statuses of a burst and prints them: the closing note quotes these figures. */
  function report(scenario: string, responses: TransactionResponse[], retries: number) {
    const successes = responses.filter((response) => response.status === 200).length;
    const conflicts = responses.filter((response) => response.status === 409).length;
    const others = responses.filter((response) => response.status !== 200 && response.status !== 409);
    const otherStatuses = others.map((response) => `${response.status} ${JSON.stringify(response.body)}`);
    console.log(
      `[economy-concurrency] ${scenario}: requests=${responses.length} successes=${successes} conflicts=${conflicts} ` +
        `other=${others.length}${others.length ? ` (${otherStatuses.slice(0, 5).join(' | ')})` : ''} retries=${retries}`,
    );
    return { successes, conflicts, others };
  }

  /** Every 409 of a burst is a short quantity naming its FAILED transaction: never a lost race. */
  function expectOnlyShortQuantities(responses: TransactionResponse[]): void {
    for (const response of responses.filter((candidate) => candidate.status === 409)) {
      expectErrorBody(response, 409, 'INSUFFICIENT_QUANTITY');
      expect(response.body.transactionUid).toEqual(expect.any(String));
    }
  }

  async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await api.database.query(text, params)).rows as T[];
  }

  /**
   * The audit. For every item of `awarded` (item uid → total awarded minus removed):
   * SUM(inventory quantities) = SUM(AWARD and REMOVAL ledger deltas) = the figure given; the TRADE deltas
   * sum to 0, per item and per transaction; no row is negative or left at 0; every COMPLETED
   * transaction has the ledger rows of its net movements and no other transaction has any; every
   * persona's quantity equals its ledger sum.
   */
  async function expectInvariants(awarded: Record<string, number>): Promise<void> {
    const itemUids = Object.keys(awarded);
    const held = await sql<{ itemUid: string; total: number }>(
      'SELECT "itemUid", sum(quantity)::int AS total FROM inventory_items WHERE "itemUid" = ANY($1::uuid[]) GROUP BY "itemUid"',
      [itemUids],
    );
    const byType = await sql<{ itemUid: string; type: string; total: number }>(
      `SELECT ledger."itemUid", transaction.type, sum(ledger.delta)::int AS total
       FROM inventory_ledger ledger JOIN transactions transaction ON transaction.uid = ledger."transactionUid"
       WHERE ledger."itemUid" = ANY($1::uuid[]) GROUP BY ledger."itemUid", transaction.type`,
      [itemUids],
    );
    for (const itemUid of itemUids) {
      const heldTotal = held.find((row) => row.itemUid === itemUid)?.total ?? 0;
      const ledger = (type: string) => byType.find((row) => row.itemUid === itemUid && row.type === type)?.total ?? 0;
      expect({ itemUid, held: heldTotal, awardedAndRemoved: ledger('AWARD') + ledger('REMOVAL'), traded: ledger('TRADE') }).toEqual({
        itemUid,
        held: awarded[itemUid],
        awardedAndRemoved: awarded[itemUid],
        traded: 0,
      });
    }

    const [{ lowest, empty }] = await sql<{ lowest: number | null; empty: number }>(
      'SELECT min(quantity) AS lowest, count(*) FILTER (WHERE quantity <= 0)::int AS empty FROM inventory_items',
    );
    expect(empty).toBe(0);
    expect(lowest === null || lowest > 0).toBe(true);

    const unbalancedTrades = await sql(
      `SELECT ledger."transactionUid", ledger."itemUid" FROM inventory_ledger ledger
       JOIN transactions transaction ON transaction.uid = ledger."transactionUid" AND transaction.type = 'TRADE'
       GROUP BY ledger."transactionUid", ledger."itemUid" HAVING sum(ledger.delta) <> 0`,
    );
    expect(unbalancedTrades).toEqual([]);

    // Every COMPLETED transaction has exactly the ledger rows of what it moves, net (an item given both
    // ways in equal numbers moves nothing); no FAILED, PENDING, CANCELED or DECLINED one has any.
    const transactions = await sql<{
      uid: string;
      status: string;
      type: string;
      personaOneUid: string;
      personaTwoUid: string | null;
      personaOneInventoryItems: ItemQuantityBody[];
      personaTwoInventoryItems: ItemQuantityBody[];
    }>(
      'SELECT uid, status, type, "personaOneUid", "personaTwoUid", "personaOneInventoryItems", "personaTwoInventoryItems" FROM transactions',
    );
    const entries = await sql<{ transactionUid: string; personaUid: string; itemUid: string; delta: number }>(
      'SELECT "transactionUid", "personaUid", "itemUid", delta FROM inventory_ledger',
    );
    const recorded = new Map<string, string[]>();
    for (const entry of entries) {
      recorded.set(entry.transactionUid, [
        ...(recorded.get(entry.transactionUid) ?? []),
        `${entry.personaUid}/${entry.itemUid}/${entry.delta}`,
      ]);
    }
    let completedWithRows = 0;
    for (const transaction of transactions) {
      const expected = transaction.status === 'COMPLETED' ? netMovements(transaction) : [];
      if (transaction.status === 'COMPLETED' && expected.length > 0) completedWithRows += 1;
      expect({ uid: transaction.uid, status: transaction.status, ledger: (recorded.get(transaction.uid) ?? []).sort() }).toEqual({
        uid: transaction.uid,
        status: transaction.status,
        ledger: expected.sort(),
      });
    }
    expect(completedWithRows).toBeGreaterThan(0);
    expect(new Set(entries.map((entry) => entry.transactionUid)).size).toBe(completedWithRows);

    const mismatched = await sql(
      `SELECT coalesce(held."personaUid", ledger."personaUid") AS "personaUid", coalesce(held."itemUid", ledger."itemUid") AS "itemUid",
              coalesce(held.quantity, 0) AS held, coalesce(ledger.total, 0)::int AS ledger
       FROM inventory_items held
       FULL OUTER JOIN (SELECT "personaUid", "itemUid", sum(delta) AS total FROM inventory_ledger GROUP BY "personaUid", "itemUid") ledger
         ON ledger."personaUid" = held."personaUid" AND ledger."itemUid" = held."itemUid"
       WHERE coalesce(held.quantity, 0) <> coalesce(ledger.total, 0)`,
    );
    expect(mismatched).toEqual([]);
  }

  /** The uids of the transactions answered 200 and 409 match the COMPLETED and FAILED records. */
  async function expectResponsesMatchRecords(responses: TransactionResponse[], since: string): Promise<void> {
    const completed = responses.filter((response) => response.status === 200).map((response) => response.body.uid);
    const failed = responses.filter((response) => response.status === 409).map((response) => response.body.transactionUid);
    const stored = await sql<{ uid: string; status: string }>(
      `SELECT uid, status FROM transactions WHERE type = 'TRADE' AND "dateCreated" >= $1 AND status IN ('COMPLETED', 'FAILED')`,
      [since],
    );
    expect(new Set(completed).size).toBe(completed.length);
    expect(
      stored
        .filter((row) => row.status === 'COMPLETED')
        .map((row) => row.uid)
        .sort(),
    ).toEqual([...completed].sort());
    expect(
      stored
        .filter((row) => row.status === 'FAILED')
        .map((row) => row.uid)
        .sort(),
    ).toEqual([...failed].sort());
  }

  /** What the giver (persona one) held when each FAILED transaction was tried, from its stored snapshot. */
  async function failedGiverHoldings(responses: TransactionResponse[]): Promise<Map<string, number>> {
    const uids = responses.filter((response) => response.status === 409).map((response) => response.body.transactionUid);
    const rows = await sql<{ uid: string; status: string; before: SnapshotBody[] }>(
      'SELECT uid, status, "personaOneInventoryItemsBefore" AS before FROM transactions WHERE uid = ANY($1::uuid[])',
      [uids],
    );
    expect(rows).toHaveLength(uids.length);
    for (const row of rows) expect(row.status).toBe('FAILED');
    return new Map(rows.map((row) => [row.uid, row.before[0].quantity]));
  }

  async function databaseNow(): Promise<string> {
    const [{ now }] = await sql<{ now: Date }>('SELECT now() AS now');
    return new Date(now.getTime() - 1).toISOString();
  }

  it(
    'lets exactly 20 of 50 concurrent one-unit gifts from a holding of 20 succeed; the other 30 are short',
    async () => {
      const [giver, receiver] = [await api.newPlayerWithPersona('merchant'), await api.newPlayerWithPersona('merchant')];
      const ruby = await createItem('Ruby');
      await award(giver.personaUid, ruby, 20);
      const since = await databaseNow();
      const retriesBefore = await retriesSoFar();

      const responses = await burst(
        Array.from(
          { length: 50 },
          () => () =>
            transact(
              {
                personaOneUid: giver.personaUid,
                personaTwoUid: receiver.personaUid,
                personaOneInventoryItems: [{ itemUid: ruby, quantity: 1 }],
              },
              giver.token,
            ),
        ),
      );

      const figures = report('(a) 50 one-unit gifts from a holding of 20', responses, (await retriesSoFar()) - retriesBefore);
      expect(figures.others).toEqual([]);
      expect(figures.successes).toBe(20);
      expect(figures.conflicts).toBe(30);
      expectOnlyShortQuantities(responses);
      const successes = responses.filter((response) => response.status === 200);
      for (const response of successes) expect(response.body.status).toBe('COMPLETED');
      // Serialised, the 20 gifts saw the giver at 20, 19, ..., 1 and the receiver at 0, 1, ..., 19.
      const giverBefore = successes.map((response) => response.body.personaOneInventoryItemsBefore[0].quantity).sort((a, b) => a - b);
      const receiverBefore = successes.map((response) => response.body.personaTwoInventoryItemsBefore[0].quantity).sort((a, b) => a - b);
      expect(giverBefore).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
      expect(receiverBefore).toEqual(Array.from({ length: 20 }, (_, index) => index));
      // And the 30 that failed found the giver empty.
      expect([...(await failedGiverHoldings(responses)).values()]).toEqual(Array(30).fill(0));

      const giverInventory = await api.get<InventoryItemBody[]>('/inventories', { token: giver.token });
      const receiverInventory = await api.get<InventoryItemBody[]>('/inventories', { token: receiver.token });
      expect(giverInventory.body).toEqual([]);
      expect(receiverInventory.body).toEqual([expect.objectContaining({ itemUid: ruby, quantity: 20 })]);
      expect(await sql('SELECT 1 FROM inventory_items WHERE "personaUid" = $1', [giver.personaUid])).toEqual([]);
      await expectResponsesMatchRecords(responses, since);
      await expectInvariants({ [ruby]: 20 });
    },
    SCENARIO_TIMEOUT,
  );

  it(
    'keeps every item accounted for through 200 random concurrent gifts and trades among 6 players',
    async () => {
      // A small stock, so that some trades come up short while others run: both paths under contention.
      const STOCK = 12;
      const random = seededRandom(0x5eed);
      const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
      const quantity = () => 1 + Math.floor(random() * 5);
      const players: Player[] = [];
      for (let index = 0; index < 6; index++) players.push(await api.newPlayerWithPersona('merchant'));
      const items = [await createItem('Iron ore'), await createItem('Silver ore'), await createItem('Gold ore')];
      for (const player of players) for (const item of items) await award(player.personaUid, item, STOCK);
      const since = await databaseNow();
      const retriesBefore = await retriesSoFar();

      // 80 gifts by their givers, 60 two-way trades by the admin (processed at once), 60 two-way trades by
      // players (PENDING, accepted concurrently afterwards by persona two's owners).
      const kinds = [...Array(80).fill('gift'), ...Array(60).fill('admin'), ...Array(60).fill('pending')] as Array<
        'gift' | 'admin' | 'pending'
      >;
      const planned = kinds.map((kind) => {
        const one = pick(players);
        const two = pick(players.filter((player) => player !== one));
        const body: Record<string, unknown> = {
          type: 'TRADE',
          personaOneUid: one.personaUid,
          personaTwoUid: two.personaUid,
          personaOneInventoryItems: [{ itemUid: pick(items), quantity: quantity() }],
        };
        if (kind !== 'gift') body.personaTwoInventoryItems = [{ itemUid: pick(items), quantity: quantity() }];
        return { kind, two, request: () => transact(body, kind === 'admin' ? admin : one.token) };
      });
      // Interleave the kinds, reproducibly.
      const order = planned
        .map((entry) => ({ entry, key: random() }))
        .sort((a, b) => a.key - b.key)
        .map(({ entry }) => entry);

      const responses = await burst(order.map((entry) => entry.request));

      const created = report(
        '(b) 200 random transactions (gifts, admin trades, pending trades)',
        responses,
        (await retriesSoFar()) - retriesBefore,
      );
      expect(created.others).toEqual([]);
      expectOnlyShortQuantities(responses);
      order.forEach((entry, index) => {
        const response = responses[index];
        if (response.status === 200) expect(response.body.status).toBe(entry.kind === 'pending' ? 'PENDING' : 'COMPLETED');
      });
      expect(responses.filter((response, index) => order[index].kind === 'pending' && response.status === 200)).toHaveLength(60);

      const retriesBeforeAccepts = await retriesSoFar();
      const pending = order
        .map((entry, index) => ({ entry, uid: responses[index].body.uid }))
        .filter(({ entry }) => entry.kind === 'pending');
      const accepts = (await burst(
        pending.map(
          ({ entry, uid }) =>
            () =>
              api.post(`/transactions/${uid}/accept`, undefined, { token: entry.two.token }),
        ),
      )) as TransactionResponse[];

      const accepted = report('(b) 60 concurrent accepts of pending trades', accepts, (await retriesSoFar()) - retriesBeforeAccepts);
      expect(accepted.others).toEqual([]);
      expectOnlyShortQuantities(accepts);
      for (const response of accepts.filter((candidate) => candidate.status === 200)) expect(response.body.status).toBe('COMPLETED');
      accepts.forEach((response, index) => {
        if (response.status === 409) expect(response.body.transactionUid).toBe(pending[index].uid);
      });
      const processed = [...responses.filter((_, index) => order[index].kind !== 'pending'), ...accepts];
      await expectResponsesMatchRecords(processed, since);
      const [{ stillPending }] = await sql<{ stillPending: number }>(
        `SELECT count(*)::int AS "stillPending" FROM transactions WHERE status = 'PENDING' AND "dateCreated" >= $1`,
        [since],
      );
      expect(stillPending).toBe(0);
      await expectInvariants(Object.fromEntries(items.map((item) => [item, STOCK * players.length])));
    },
    SCENARIO_TIMEOUT,
  );

  it(
    'keeps both inventories exact through 100 concurrent gifts back and forth between one pair',
    async () => {
      const random = seededRandom(0xc0ffee);
      const [alice, bob] = [await api.newPlayerWithPersona('merchant'), await api.newPlayerWithPersona('merchant')];
      const shell = await createItem('Shell');
      await award(alice.personaUid, shell, 6);
      await award(bob.personaUid, shell, 6);
      const since = await databaseNow();
      const retriesBefore = await retriesSoFar();
      const gifts = Array.from({ length: 100 }, (_, index) => ({
        aliceGives: index % 2 === 0,
        quantity: 1 + Math.floor(random() * 3),
      }));

      const responses = await burst(
        gifts.map(({ aliceGives, quantity }) => () => {
          const [from, to] = aliceGives ? [alice, bob] : [bob, alice];
          return transact(
            { personaOneUid: from.personaUid, personaTwoUid: to.personaUid, personaOneInventoryItems: [{ itemUid: shell, quantity }] },
            from.token,
          );
        }),
      );

      const figures = report('(c) 100 gifts back and forth on one pair', responses, (await retriesSoFar()) - retriesBefore);
      expect(figures.others).toEqual([]);
      expectOnlyShortQuantities(responses);
      // What Alice should hold: her 6, less what she gave, plus what she received, in the gifts that ran.
      const aliceHolds = gifts.reduce(
        (held, { aliceGives, quantity }, index) => (responses[index].status === 200 ? held + (aliceGives ? -quantity : quantity) : held),
        6,
      );
      const holding = async (player: Player) =>
        (await api.get<InventoryItemBody[]>('/inventories', { token: player.token })).body.reduce((sum, row) => sum + row.quantity, 0);
      expect(await holding(alice)).toBe(aliceHolds);
      expect(await holding(bob)).toBe(12 - aliceHolds);
      // Each gift saw the giver's holding as the gifts before it had left it: one that ran took its
      // quantity from what it saw, one that failed saw less than it asked.
      const failedSaw = await failedGiverHoldings(responses);
      responses.forEach((response, index) => {
        if (response.status === 200) {
          const before = response.body.personaOneInventoryItemsBefore[0].quantity;
          expect(before).toBeGreaterThanOrEqual(gifts[index].quantity);
          expect(response.body.personaOneInventoryItemsAfter[0].quantity).toBe(before - gifts[index].quantity);
        } else {
          expect(failedSaw.get(response.body.transactionUid!)).toBeLessThan(gifts[index].quantity);
        }
      });
      await expectResponsesMatchRecords(responses, since);
      await expectInvariants({ [shell]: 12 });
    },
    SCENARIO_TIMEOUT,
  );
});
