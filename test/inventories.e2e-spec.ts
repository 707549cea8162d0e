import { randomUUID } from 'node:crypto';
import { TestApp, type TestResponse } from './support/test-app.js';
import type {
  BodyOrError,
  CountBody,
  ErrorResponse,
  InventoryItemBody,
  ItemBody,
  PersonaBody,
  SnapshotBody,
  TransactionBody,
} from './support/api-types.js';
import { expectErrorBody, expectValidationError, ISO_MILLISECONDS, UUID_V4 } from './support/expectations.js';

/**
 * Inventories (read-only, scoped to the caller's personas) and the transactions that change them:
 * awards, removals, gifts, trades with accept/decline/cancel, short quantities, idempotency, the
 * append-only ledger (docs/CONTRACT.md section 7, "Inventories" and "Transactions").
 */

/** What POST /inventories/transaction answers: a transaction (200) or an error body. */
type TransactionReply = BodyOrError<TransactionBody>;

interface Player {
  token: string;
  personaUid: string;
}

interface LedgerRow {
  personaUid: string;
  itemUid: string;
  delta: number;
}

type Holdings = Record<string, number>;

/** A snapshot array as { itemUid: quantity }, after checking that every entry is `personaUid`'s. */
function snapshotQuantities(snapshot: SnapshotBody[], personaUid: string): Holdings {
  for (const entry of snapshot) expect(entry.personaUid).toBe(personaUid);
  const quantities = Object.fromEntries(snapshot.map((entry) => [entry.itemUid, entry.quantity]));
  expect(Object.keys(quantities)).toHaveLength(snapshot.length);
  return quantities;
}

describe('inventories and transactions', () => {
  let api: TestApp;
  let admin: string;
  let playerCount = 0;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api.close();
  });

  /** A new player signed in for the first time, with their default persona. */
  async function newPlayer(): Promise<Player> {
    playerCount += 1;
    const token = await api.signIn(`trader-${playerCount}`);
    const personas = await api.get<PersonaBody[]>('/personas', { token });
    expect(personas.status).toBe(200);
    expect(personas.body).toHaveLength(1);
    return { token, personaUid: personas.body[0].uid };
  }

  async function createItem(name: string): Promise<string> {
    const response = await api.post<ItemBody>('/items', { name }, { token: admin });
    expect(response.status).toBe(201);
    return response.body.uid;
  }

  function transact(body: Record<string, unknown>, token: string, headers?: Record<string, string>) {
    return api.post<TransactionReply>('/inventories/transaction', body, { token, headers });
  }

  async function award(personaUid: string, itemUid: string, quantity: number): Promise<TransactionBody> {
    const response = await transact({ type: 'AWARD', personaOneUid: personaUid, personaOneInventoryItems: [{ itemUid, quantity }] }, admin);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('COMPLETED');
    return response.body as TransactionBody;
  }

  /**
   * What a persona holds, as the admin reads it through GET /inventories and as the database has it;
   * the two must agree.
   */
  async function holdings(personaUid: string): Promise<Holdings> {
    const response = await api.get<InventoryItemBody[]>(`/inventories?personaUid=${personaUid}&limit=1000`, { token: admin });
    expect(response.status).toBe(200);
    const listed = Object.fromEntries(response.body.map((row) => [row.itemUid, row.quantity]));
    const { rows } = await api.database.query<{ itemUid: string; quantity: number }>(
      'SELECT "itemUid", quantity FROM inventory_items WHERE "personaUid" = $1',
      [personaUid],
    );
    expect(Object.fromEntries(rows.map((row) => [row.itemUid, row.quantity]))).toEqual(listed);
    return listed;
  }

  async function ledgerOf(transactionUid: string): Promise<LedgerRow[]> {
    const { rows } = await api.database.query<LedgerRow>(
      'SELECT "personaUid", "itemUid", delta FROM inventory_ledger WHERE "transactionUid" = $1 ORDER BY delta, "personaUid"',
      [transactionUid],
    );
    return rows;
  }

  /** Rows in the ledger and in the transactions table: what "nothing changed" is checked against. */
  async function tableCounts(): Promise<{ ledger: number; transactions: number }> {
    const { rows } = await api.database.query<{ ledger: number; transactions: number }>(
      'SELECT (SELECT count(*)::int FROM inventory_ledger) AS ledger, (SELECT count(*)::int FROM transactions) AS transactions',
    );
    return rows[0];
  }

  async function readTransaction(uid: string, token = admin): Promise<TransactionBody> {
    const response = await api.get<TransactionBody>(`/transactions/${uid}`, { token });
    expect(response.status).toBe(200);
    return response.body;
  }

  /** Two players; persona one holds 10 swords, persona two 8 gold: the stock of the trade tests. */
  async function tradingPair(): Promise<{ one: Player; two: Player; sword: string; gold: string }> {
    const [one, two] = [await newPlayer(), await newPlayer()];
    const sword = await createItem('Sword');
    const gold = await createItem('Gold');
    await award(one.personaUid, sword, 10);
    await award(two.personaUid, gold, 8);
    return { one, two, sword, gold };
  }

  /** Persona one gives 2 swords, persona two gives 5 gold. */
  function swordsForGold(pair: { one: Player; two: Player; sword: string; gold: string }) {
    return {
      type: 'TRADE',
      personaOneUid: pair.one.personaUid,
      personaTwoUid: pair.two.personaUid,
      personaOneInventoryItems: [{ itemUid: pair.sword, quantity: 2 }],
      personaTwoInventoryItems: [{ itemUid: pair.gold, quantity: 5 }],
    };
  }

  describe('reading inventories', () => {
    it("lists, counts and finds only the caller's own personas' inventory items; the admin sees all", async () => {
      const [alice, bob] = [await newPlayer(), await newPlayer()];
      const herbs = await createItem('Herbs');
      await award(alice.personaUid, herbs, 4);
      await award(bob.personaUid, herbs, 9);
      const second = await api.post<PersonaBody>('/personas', { name: 'Alice the second' }, { token: alice.token });
      expect(second.status).toBe(201);
      await award(second.body.uid, herbs, 1);

      const list = await api.get<InventoryItemBody[]>('/inventories?limit=1000', { token: alice.token });
      const count = await api.get<CountBody>('/inventories/count', { token: alice.token });

      expect(list.status).toBe(200);
      expect(list.body.map((row) => [row.personaUid, row.quantity]).sort()).toEqual(
        [
          [alice.personaUid, 4],
          [second.body.uid, 1],
        ].sort(),
      );
      expect(count.status).toBe(200);
      expect(count.body).toEqual({ count: 2 });
      const own = list.body.find((row) => row.personaUid === alice.personaUid)!;
      expect(own).toEqual({
        uid: expect.stringMatching(UUID_V4),
        personaUid: alice.personaUid,
        itemUid: herbs,
        quantity: 4,
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
        version: 0,
      });
      const found = await api.get<InventoryItemBody>(`/inventories/${own.uid}`, { token: alice.token });
      expect(found.status).toBe(200);
      expect(found.body).toEqual(own);

      const bobsRows = await api.get<InventoryItemBody[]>('/inventories', { token: bob.token });
      expect(bobsRows.body).toHaveLength(1);
      const bobsRow = bobsRows.body[0];
      expect(bobsRow).toMatchObject({ personaUid: bob.personaUid, itemUid: herbs, quantity: 9 });
      expect(list.body.map((row) => row.uid)).not.toContain(bobsRow.uid);
      expectErrorBody(await api.get(`/inventories/${bobsRow.uid}`, { token: alice.token }), 404, 'NOT_FOUND');
      const filteredCount = await api.get<CountBody>(`/inventories/count?personaUid=${bob.personaUid}`, { token: alice.token });
      expect(filteredCount.body).toEqual({ count: 0 });

      const adminList = await api.get<InventoryItemBody[]>(`/inventories?itemUid=${herbs}`, { token: admin });
      expect(adminList.body.map((row) => row.quantity).sort((a, b) => a - b)).toEqual([1, 4, 9]);
      const adminCount = await api.get<CountBody>(`/inventories/count?itemUid=${herbs}`, { token: admin });
      expect(adminCount.body).toEqual({ count: 3 });
      const adminFound = await api.get<InventoryItemBody>(`/inventories/${bobsRow.uid}`, { token: admin });
      expect(adminFound.status).toBe(200);
      expect(adminFound.body).toEqual(bobsRow);
    });

    it('has no route that creates, updates or deletes an inventory item', async () => {
      const player = await newPlayer();
      const apples = await createItem('Apple');
      await award(player.personaUid, apples, 3);
      const [row] = (await api.get<InventoryItemBody[]>('/inventories', { token: player.token })).body;

      const created = await api.post('/inventories', { personaUid: player.personaUid, itemUid: apples, quantity: 100 }, { token: admin });
      const updated = await api.put(`/inventories/${row.uid}`, { quantity: 100 }, { token: admin });
      const deleted = await api.delete(`/inventories/${row.uid}`, { token: admin });

      // The paths exist (for reading), so the other methods are 405 naming what they serve.
      expectErrorBody(created, 405, 'METHOD_NOT_ALLOWED');
      expectErrorBody(updated, 405, 'METHOD_NOT_ALLOWED');
      expectErrorBody(deleted, 405, 'METHOD_NOT_ALLOWED');
      expect(updated.headers.allow).toBe('GET, HEAD');
      expect(await holdings(player.personaUid)).toEqual({ [apples]: 3 });
      expect((await api.get<InventoryItemBody>(`/inventories/${row.uid}`, { token: player.token })).body).toEqual(row);
    });

    it('answers 400 to a malformed inventory id, 404 to an unknown one and 401 without a token', async () => {
      expectValidationError(await api.get('/inventories/not-a-uuid', { token: admin }), 'id');
      expectErrorBody(await api.get(`/inventories/${randomUUID()}`, { token: admin }), 404, 'NOT_FOUND');
      expectErrorBody(await api.get('/inventories'), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.get('/inventories/count'), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.get('/transactions'), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/inventories/transaction', { personaOneUid: randomUUID() }), 401, 'UNAUTHORIZED');
    });
  });

  describe('awards and removals', () => {
    it('awards items with 200 (not 201): COMPLETED, snapshots from 0 to N, inventory and ledger updated', async () => {
      const player = await newPlayer();
      const potion = await createItem('Potion');

      const response = await transact(
        { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: potion, quantity: 7 }] },
        admin,
      );

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        uid: expect.stringMatching(UUID_V4),
        status: 'COMPLETED',
        type: 'AWARD',
        personaOneUid: player.personaUid,
        personaTwoUid: null,
        personaOneInventoryItems: [{ itemUid: potion, quantity: 7 }],
        personaTwoInventoryItems: [],
        personaOneInventoryItemsBefore: [{ personaUid: player.personaUid, itemUid: potion, quantity: 0 }],
        personaOneInventoryItemsAfter: [
          expect.objectContaining({ uid: expect.stringMatching(UUID_V4), personaUid: player.personaUid, itemUid: potion, quantity: 7 }),
        ],
        personaTwoInventoryItemsBefore: [],
        personaTwoInventoryItemsAfter: [],
        reason: null,
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
        // Settled at once or stored PENDING and settled later (an accepted trade): version 1 either way.
        version: 1,
      });
      expect(await holdings(player.personaUid)).toEqual({ [potion]: 7 });
      expect(await ledgerOf(response.body.uid)).toEqual([{ personaUid: player.personaUid, itemUid: potion, delta: 7 }]);
      expect(await readTransaction(response.body.uid, player.token)).toEqual(response.body);

      const again = await transact(
        { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: potion, quantity: 2 }] },
        admin,
      );
      expect(again.status).toBe(200);
      expect(snapshotQuantities(again.body.personaOneInventoryItemsBefore, player.personaUid)).toEqual({ [potion]: 7 });
      expect(snapshotQuantities(again.body.personaOneInventoryItemsAfter, player.personaUid)).toEqual({ [potion]: 9 });
      expect(await holdings(player.personaUid)).toEqual({ [potion]: 9 });
    });

    it('lets the admin remove items; a row that reaches 0 disappears from the inventory', async () => {
      const player = await newPlayer();
      const arrows = await createItem('Arrow');
      const bolts = await createItem('Bolt');
      await award(player.personaUid, arrows, 20);
      await award(player.personaUid, bolts, 3);
      const arrowRow = (await api.get<InventoryItemBody[]>(`/inventories?itemUid=${arrows}`, { token: player.token })).body[0];

      const partial = await transact(
        { type: 'REMOVAL', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: arrows, quantity: 5 }] },
        admin,
      );
      expect(partial.status).toBe(200);
      expect(partial.body).toMatchObject({ status: 'COMPLETED', type: 'REMOVAL', personaTwoUid: null });
      expect(snapshotQuantities(partial.body.personaOneInventoryItemsBefore, player.personaUid)).toEqual({ [arrows]: 20 });
      expect(snapshotQuantities(partial.body.personaOneInventoryItemsAfter, player.personaUid)).toEqual({ [arrows]: 15 });
      expect(await ledgerOf(partial.body.uid)).toEqual([{ personaUid: player.personaUid, itemUid: arrows, delta: -5 }]);
      expect(await holdings(player.personaUid)).toEqual({ [arrows]: 15, [bolts]: 3 });
      // A snapshot is the row as the inventory serves it, every field, before and after.
      const rowAfter = await api.get<InventoryItemBody>(`/inventories/${arrowRow.uid}`, { token: player.token });
      expect(rowAfter.body).toMatchObject({ quantity: 15, version: arrowRow.version + 1 });
      expect(partial.body.personaOneInventoryItemsBefore).toEqual([arrowRow]);
      expect(partial.body.personaOneInventoryItemsAfter).toEqual([rowAfter.body]);

      const all = await transact(
        { type: 'REMOVAL', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: arrows, quantity: 15 }] },
        admin,
      );
      expect(all.status).toBe(200);
      expect(all.body.status).toBe('COMPLETED');
      expect(all.body.personaOneInventoryItemsBefore).toEqual([rowAfter.body]);
      expect(all.body.personaOneInventoryItemsAfter).toEqual([{ personaUid: player.personaUid, itemUid: arrows, quantity: 0 }]);
      expect(await holdings(player.personaUid)).toEqual({ [bolts]: 3 });
      expectErrorBody(await api.get(`/inventories/${arrowRow.uid}`, { token: player.token }), 404, 'NOT_FOUND');
      expect((await api.get<{ count: number }>('/inventories/count', { token: player.token })).body).toEqual({ count: 1 });
    });

    it('refuses to remove more than the persona holds: 409 INSUFFICIENT_QUANTITY, FAILED, nothing removed', async () => {
      const player = await newPlayer();
      const gems = await createItem('Gem');
      await award(player.personaUid, gems, 2);
      const before = await tableCounts();

      const response = await transact(
        { type: 'REMOVAL', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: gems, quantity: 3 }] },
        admin,
      );

      expectErrorBody(response, 409, 'INSUFFICIENT_QUANTITY');
      expect(response.body.transactionUid).toMatch(UUID_V4);
      expect(await readTransaction(response.body.transactionUid!)).toMatchObject({
        status: 'FAILED',
        type: 'REMOVAL',
        reason: expect.any(String),
      });
      expect(await holdings(player.personaUid)).toEqual({ [gems]: 2 });
      expect(await ledgerOf(response.body.transactionUid!)).toEqual([]);
      expect(await tableCounts()).toEqual({ ledger: before.ledger, transactions: before.transactions + 1 });
    });

    it.each([
      ['an AWARD', 'AWARD'],
      ['a REMOVAL', 'REMOVAL'],
    ])('refuses %s by a player, even for their own persona, with 403 and changes nothing', async (_case, type) => {
      const player = await newPlayer();
      const coins = await createItem('Coin');
      await award(player.personaUid, coins, 5);
      const before = await tableCounts();

      const response = await transact(
        { type, personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: coins, quantity: 1000 }] },
        player.token,
      );

      expectErrorBody(response, 403, 'FORBIDDEN');
      expect(await holdings(player.personaUid)).toEqual({ [coins]: 5 });
      expect(await tableCounts()).toEqual(before);
    });
  });

  describe('gifts', () => {
    it('processes a gift (persona two gives nothing) at once: COMPLETED, both inventories and the ledger changed', async () => {
      const [giver, receiver] = [await newPlayer(), await newPlayer()];
      const bread = await createItem('Bread');
      await award(giver.personaUid, bread, 5);

      const response = await transact(
        {
          personaOneUid: giver.personaUid,
          personaTwoUid: receiver.personaUid,
          personaOneInventoryItems: [{ itemUid: bread, quantity: 3 }],
        },
        giver.token,
      );

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        status: 'COMPLETED',
        type: 'TRADE',
        personaOneUid: giver.personaUid,
        personaTwoUid: receiver.personaUid,
        personaOneInventoryItems: [{ itemUid: bread, quantity: 3 }],
        personaTwoInventoryItems: [],
        reason: null,
      });
      expect(snapshotQuantities(response.body.personaOneInventoryItemsBefore, giver.personaUid)).toEqual({ [bread]: 5 });
      expect(snapshotQuantities(response.body.personaOneInventoryItemsAfter, giver.personaUid)).toEqual({ [bread]: 2 });
      expect(snapshotQuantities(response.body.personaTwoInventoryItemsBefore, receiver.personaUid)).toEqual({ [bread]: 0 });
      expect(snapshotQuantities(response.body.personaTwoInventoryItemsAfter, receiver.personaUid)).toEqual({ [bread]: 3 });
      expect(await holdings(giver.personaUid)).toEqual({ [bread]: 2 });
      expect(await holdings(receiver.personaUid)).toEqual({ [bread]: 3 });
      const received = await api.get<InventoryItemBody[]>('/inventories', { token: receiver.token });
      expect(received.body).toEqual([expect.objectContaining({ personaUid: receiver.personaUid, itemUid: bread, quantity: 3 })]);
      expect(await ledgerOf(response.body.uid)).toEqual([
        { personaUid: giver.personaUid, itemUid: bread, delta: -3 },
        { personaUid: receiver.personaUid, itemUid: bread, delta: 3 },
      ]);
    });

    it("removes the giver's row when a gift gives away everything", async () => {
      const [giver, receiver] = [await newPlayer(), await newPlayer()];
      const torch = await createItem('Torch');
      const rope = await createItem('Rope');
      await award(giver.personaUid, torch, 4);
      await award(giver.personaUid, rope, 1);
      const torchRow = (await api.get<InventoryItemBody[]>(`/inventories?itemUid=${torch}`, { token: giver.token })).body[0];

      const response = await transact(
        {
          personaOneUid: giver.personaUid,
          personaTwoUid: receiver.personaUid,
          personaOneInventoryItems: [{ itemUid: torch, quantity: 4 }],
        },
        giver.token,
      );

      expect(response.status).toBe(200);
      expect(response.body.status).toBe('COMPLETED');
      expect(snapshotQuantities(response.body.personaOneInventoryItemsAfter, giver.personaUid)).toEqual({ [torch]: 0 });
      expect(await holdings(giver.personaUid)).toEqual({ [rope]: 1 });
      expect(await holdings(receiver.personaUid)).toEqual({ [torch]: 4 });
      expectErrorBody(await api.get(`/inventories/${torchRow.uid}`, { token: giver.token }), 404, 'NOT_FOUND');
      const { rows } = await api.database.query('SELECT 1 FROM inventory_items WHERE uid = $1', [torchRow.uid]);
      expect(rows).toEqual([]);
    });

    it('refuses a gift larger than the holding: 409 INSUFFICIENT_QUANTITY, a FAILED record with a reason, nothing moved', async () => {
      const [giver, receiver] = [await newPlayer(), await newPlayer()];
      const wool = await createItem('Wool');
      const flax = await createItem('Flax');
      await award(giver.personaUid, wool, 10);
      await award(giver.personaUid, flax, 1);
      await award(receiver.personaUid, wool, 2);
      const before = await tableCounts();

      // Enough wool, too little flax: all or nothing, so the wool stays too.
      const response = await transact(
        {
          personaOneUid: giver.personaUid,
          personaTwoUid: receiver.personaUid,
          personaOneInventoryItems: [
            { itemUid: wool, quantity: 4 },
            { itemUid: flax, quantity: 2 },
          ],
        },
        giver.token,
      );

      expectErrorBody(response, 409, 'INSUFFICIENT_QUANTITY');
      expect(response.body.transactionUid).toMatch(UUID_V4);
      const failed = await readTransaction(response.body.transactionUid!, giver.token);
      expect(failed).toMatchObject({
        uid: response.body.transactionUid,
        status: 'FAILED',
        type: 'TRADE',
        personaOneUid: giver.personaUid,
        personaTwoUid: receiver.personaUid,
      });
      expect(failed.reason).toEqual(expect.stringContaining(flax));
      expect((await readTransaction(response.body.transactionUid!, receiver.token)).status).toBe('FAILED');
      expect(await holdings(giver.personaUid)).toEqual({ [wool]: 10, [flax]: 1 });
      expect(await holdings(receiver.personaUid)).toEqual({ [wool]: 2 });
      expect(await ledgerOf(failed.uid)).toEqual([]);
      expect(await tableCounts()).toEqual({ ledger: before.ledger, transactions: before.transactions + 1 });
    });

    it("refuses a trade from another player's persona with 403 and moves nothing", async () => {
      const [victim, thief] = [await newPlayer(), await newPlayer()];
      const crown = await createItem('Crown');
      await award(victim.personaUid, crown, 1);
      const before = await tableCounts();

      const response = await transact(
        { personaOneUid: victim.personaUid, personaTwoUid: thief.personaUid, personaOneInventoryItems: [{ itemUid: crown, quantity: 1 }] },
        thief.token,
      );

      expectErrorBody(response, 403, 'FORBIDDEN');
      expect(await holdings(victim.personaUid)).toEqual({ [crown]: 1 });
      expect(await holdings(thief.personaUid)).toEqual({});
      expect(await tableCounts()).toEqual(before);
    });
  });

  describe('trades that wait for persona two', () => {
    it("keeps a player's two-way trade PENDING and moves nothing until persona two's owner answers", async () => {
      const pair = await tradingPair();
      const before = await tableCounts();

      const response = await transact(swordsForGold(pair), pair.one.token);

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        uid: expect.stringMatching(UUID_V4),
        status: 'PENDING',
        type: 'TRADE',
        personaOneUid: pair.one.personaUid,
        personaTwoUid: pair.two.personaUid,
        personaOneInventoryItems: [{ itemUid: pair.sword, quantity: 2 }],
        personaTwoInventoryItems: [{ itemUid: pair.gold, quantity: 5 }],
      });
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
      expect(await ledgerOf(response.body.uid)).toEqual([]);
      expect(await tableCounts()).toEqual({ ledger: before.ledger, transactions: before.transactions + 1 });
      expect((await readTransaction(response.body.uid, pair.two.token)).status).toBe('PENDING');
    });

    it("completes the trade when persona two's owner accepts; the four snapshots hold exact quantities", async () => {
      const pair = await tradingPair();
      const pending = (await transact(swordsForGold(pair), pair.one.token)).body;

      const response = await api.post<TransactionBody>(`/transactions/${pending.uid}/accept`, undefined, { token: pair.two.token });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ uid: pending.uid, status: 'COMPLETED', type: 'TRADE', reason: null });
      const { one, two, sword, gold } = pair;
      expect(snapshotQuantities(response.body.personaOneInventoryItemsBefore, one.personaUid)).toEqual({ [sword]: 10, [gold]: 0 });
      expect(snapshotQuantities(response.body.personaOneInventoryItemsAfter, one.personaUid)).toEqual({ [sword]: 8, [gold]: 5 });
      expect(snapshotQuantities(response.body.personaTwoInventoryItemsBefore, two.personaUid)).toEqual({ [sword]: 0, [gold]: 8 });
      expect(snapshotQuantities(response.body.personaTwoInventoryItemsAfter, two.personaUid)).toEqual({ [sword]: 2, [gold]: 3 });
      expect(await holdings(one.personaUid)).toEqual({ [sword]: 8, [gold]: 5 });
      expect(await holdings(two.personaUid)).toEqual({ [sword]: 2, [gold]: 3 });
      expect(await ledgerOf(pending.uid)).toEqual(
        [
          { personaUid: two.personaUid, itemUid: gold, delta: -5 },
          { personaUid: one.personaUid, itemUid: sword, delta: -2 },
          { personaUid: two.personaUid, itemUid: sword, delta: 2 },
          { personaUid: one.personaUid, itemUid: gold, delta: 5 },
        ].sort((a, b) => a.delta - b.delta || a.personaUid.localeCompare(b.personaUid)),
      );
      expect(await readTransaction(pending.uid, one.token)).toEqual(response.body);
    });

    it("declines the trade for persona two's owner: DECLINED and nothing moved", async () => {
      const pair = await tradingPair();
      const pending = (await transact(swordsForGold(pair), pair.one.token)).body;

      const response = await api.post<TransactionBody>(`/transactions/${pending.uid}/decline`, undefined, { token: pair.two.token });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ uid: pending.uid, status: 'DECLINED' });
      expect((await readTransaction(pending.uid, pair.one.token)).status).toBe('DECLINED');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
      expect(await ledgerOf(pending.uid)).toEqual([]);
    });

    it("cancels the trade for persona one's owner: CANCELED and nothing moved", async () => {
      const pair = await tradingPair();
      const pending = (await transact(swordsForGold(pair), pair.one.token)).body;

      const response = await api.post<TransactionBody>(`/transactions/${pending.uid}/cancel`, undefined, { token: pair.one.token });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ uid: pending.uid, status: 'CANCELED' });
      expect((await readTransaction(pending.uid, pair.two.token)).status).toBe('CANCELED');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
      expect(await ledgerOf(pending.uid)).toEqual([]);
    });

    it("refuses persona one's owner accepting or declining, and persona two's owner cancelling, with 403; still PENDING", async () => {
      const pair = await tradingPair();
      const pending = (await transact(swordsForGold(pair), pair.one.token)).body;

      expectErrorBody(await api.post(`/transactions/${pending.uid}/accept`, undefined, { token: pair.one.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.post(`/transactions/${pending.uid}/decline`, undefined, { token: pair.one.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.post(`/transactions/${pending.uid}/cancel`, undefined, { token: pair.two.token }), 403, 'FORBIDDEN');

      expect((await readTransaction(pending.uid)).status).toBe('PENDING');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
    });

    it('answers 404 to a stranger on accept, decline, cancel and GET, and leaves the trade PENDING', async () => {
      const pair = await tradingPair();
      const stranger = await newPlayer();
      const pending = (await transact(swordsForGold(pair), pair.one.token)).body;

      expectErrorBody(await api.post(`/transactions/${pending.uid}/accept`, undefined, { token: stranger.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.post(`/transactions/${pending.uid}/decline`, undefined, { token: stranger.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.post(`/transactions/${pending.uid}/cancel`, undefined, { token: stranger.token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(`/transactions/${pending.uid}`, { token: stranger.token }), 404, 'NOT_FOUND');

      expect((await readTransaction(pending.uid)).status).toBe('PENDING');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
    });

    it('answers 404 to accepting an unknown transaction and 400 to a malformed id', async () => {
      const player = await newPlayer();

      expectErrorBody(await api.post(`/transactions/${randomUUID()}/accept`, undefined, { token: player.token }), 404, 'NOT_FOUND');
      expectValidationError(await api.post('/transactions/not-a-uuid/accept', undefined, { token: player.token }), 'id');
      expectErrorBody(await api.get(`/transactions/${randomUUID()}`, { token: admin }), 404, 'NOT_FOUND');
    });

    it.each([
      ['accepted', 'accept'],
      ['declined', 'decline'],
      ['canceled', 'cancel'],
    ] as const)(
      'refuses accept, decline and cancel of a trade already %s with 409 CONFLICT, and moves nothing more',
      async (_state, first) => {
        const pair = await tradingPair();
        const pending = (await transact(swordsForGold(pair), pair.one.token)).body;
        const firstToken = first === 'cancel' ? pair.one.token : pair.two.token;
        const answered = await api.post<TransactionBody>(`/transactions/${pending.uid}/${first}`, undefined, { token: firstToken });
        expect(answered.status).toBe(200);
        const oneAfter = await holdings(pair.one.personaUid);
        const twoAfter = await holdings(pair.two.personaUid);
        const ledgerAfter = await ledgerOf(pending.uid);

        expectErrorBody(await api.post(`/transactions/${pending.uid}/accept`, undefined, { token: pair.two.token }), 409, 'CONFLICT');
        expectErrorBody(await api.post(`/transactions/${pending.uid}/decline`, undefined, { token: pair.two.token }), 409, 'CONFLICT');
        expectErrorBody(await api.post(`/transactions/${pending.uid}/cancel`, undefined, { token: pair.one.token }), 409, 'CONFLICT');
        expectErrorBody(await api.post(`/transactions/${pending.uid}/accept`, undefined, { token: admin }), 409, 'CONFLICT');

        expect(await readTransaction(pending.uid)).toEqual(answered.body);
        expect(await holdings(pair.one.personaUid)).toEqual(oneAfter);
        expect(await holdings(pair.two.personaUid)).toEqual(twoAfter);
        expect(await ledgerOf(pending.uid)).toEqual(ledgerAfter);
      },
    );

    it('fails the accept of a trade whose persona one gave the items away meanwhile: 409 INSUFFICIENT_QUANTITY, FAILED', async () => {
      const pair = await tradingPair();
      const elsewhere = await newPlayer();
      const pending = (await transact(swordsForGold(pair), pair.one.token)).body;
      const giveaway = await transact(
        {
          personaOneUid: pair.one.personaUid,
          personaTwoUid: elsewhere.personaUid,
          personaOneInventoryItems: [{ itemUid: pair.sword, quantity: 9 }],
        },
        pair.one.token,
      );
      expect(giveaway.status).toBe(200);
      expect(giveaway.body.status).toBe('COMPLETED');

      const response = await api.post<ErrorResponse>(`/transactions/${pending.uid}/accept`, undefined, { token: pair.two.token });

      expectErrorBody(response, 409, 'INSUFFICIENT_QUANTITY');
      expect(response.body.transactionUid).toBe(pending.uid);
      const failed = await readTransaction(pending.uid, pair.two.token);
      expect(failed.status).toBe('FAILED');
      expect(failed.reason).toEqual(expect.stringContaining(pair.sword));
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 1 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
      expect(await holdings(elsewhere.personaUid)).toEqual({ [pair.sword]: 9 });
      expect(await ledgerOf(pending.uid)).toEqual([]);
      expectErrorBody(await api.post(`/transactions/${pending.uid}/accept`, undefined, { token: pair.two.token }), 409, 'CONFLICT');
    });

    it('fails the accept when persona two holds too little of what it gives, and moves nothing either way', async () => {
      const pair = await tradingPair();
      const trade = { ...swordsForGold(pair), personaTwoInventoryItems: [{ itemUid: pair.gold, quantity: 9 }] };
      const pending = (await transact(trade, pair.one.token)).body;
      expect(pending.status).toBe('PENDING');

      const response = await api.post<ErrorResponse>(`/transactions/${pending.uid}/accept`, undefined, { token: pair.two.token });

      expectErrorBody(response, 409, 'INSUFFICIENT_QUANTITY');
      expect(response.body.transactionUid).toBe(pending.uid);
      expect((await readTransaction(pending.uid)).status).toBe('FAILED');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
      expect(await ledgerOf(pending.uid)).toEqual([]);
    });

    it("processes at once an admin's trade in which persona two gives something", async () => {
      const pair = await tradingPair();

      const response = await transact(swordsForGold(pair), admin);

      expect(response.status).toBe(200);
      expect(response.body.status).toBe('COMPLETED');
      expect(snapshotQuantities(response.body.personaOneInventoryItemsAfter, pair.one.personaUid)).toEqual({
        [pair.sword]: 8,
        [pair.gold]: 5,
      });
      expect(snapshotQuantities(response.body.personaTwoInventoryItemsAfter, pair.two.personaUid)).toEqual({
        [pair.sword]: 2,
        [pair.gold]: 3,
      });
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 8, [pair.gold]: 5 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.sword]: 2, [pair.gold]: 3 });
      expect(await ledgerOf(response.body.uid)).toHaveLength(4);
    });

    it("refuses an admin's two-way trade in which persona two is short, moving nothing for either persona", async () => {
      const pair = await tradingPair();
      const trade = { ...swordsForGold(pair), personaTwoInventoryItems: [{ itemUid: pair.gold, quantity: 20 }] };

      const response = await transact(trade, admin);

      expectErrorBody(response, 409, 'INSUFFICIENT_QUANTITY');
      expect((await readTransaction(response.body.transactionUid!)).status).toBe('FAILED');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
      expect(await ledgerOf(response.body.transactionUid!)).toEqual([]);
    });
  });

  describe('quantities stay within the column (an integer, at most 2,147,483,647)', () => {
    const MAX_QUANTITY = 2_147_483_647;

    /** Awards `quantity` of the item in steps of at most 1,000,000,000 (a list entry's limit). */
    async function awardMany(personaUid: string, itemUid: string, quantity: number): Promise<void> {
      for (let left = quantity; left > 0; left -= 1_000_000_000) await award(personaUid, itemUid, Math.min(left, 1_000_000_000));
    }

    /** A 400 naming `field`, whose message names the limit; no transaction stored. */
    function expectOutOfRange(response: TestResponse<TransactionReply>, field: string): void {
      expectValidationError(response, field);
      expect(response.body.message).toContain(String(MAX_QUANTITY));
      expect(response.body.transactionUid).toBeUndefined();
    }

    it('awards up to exactly 2,147,483,647, and refuses one more with 400 naming the quantity; nothing stored or moved', async () => {
      const player = await newPlayer();
      const coins = await createItem('Coin hoard');
      await awardMany(player.personaUid, coins, MAX_QUANTITY);
      expect(await holdings(player.personaUid)).toEqual({ [coins]: MAX_QUANTITY });
      const before = await tableCounts();

      const response = await transact(
        { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: coins, quantity: 1 }] },
        admin,
      );

      expectOutOfRange(response, 'personaOneInventoryItems.0.quantity');
      expect(await holdings(player.personaUid)).toEqual({ [coins]: MAX_QUANTITY });
      expect(await tableCounts()).toEqual(before);
    });

    it('refuses the whole AWARD when one entry would overflow, naming that entry; the others do not move either', async () => {
      const player = await newPlayer();
      const [coins, gems] = [await createItem('Coin'), await createItem('Gem')];
      await awardMany(player.personaUid, coins, 2_000_000_000);
      const before = await tableCounts();

      const response = await transact(
        {
          type: 'AWARD',
          personaOneUid: player.personaUid,
          personaOneInventoryItems: [
            { itemUid: gems, quantity: 5 },
            { itemUid: coins, quantity: 200_000_000 },
          ],
        },
        admin,
      );

      expectOutOfRange(response, 'personaOneInventoryItems.1.quantity');
      expect(await holdings(player.personaUid)).toEqual({ [coins]: 2_000_000_000 });
      expect(await tableCounts()).toEqual(before);
    });

    it('stores nothing for an overflowing AWARD sent with an Idempotency-Key; a retry is refused the same way', async () => {
      const player = await newPlayer();
      const coins = await createItem('Coin');
      await awardMany(player.personaUid, coins, MAX_QUANTITY);
      const before = await tableCounts();
      const body = { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: coins, quantity: 10 }] };

      expectOutOfRange(await transact(body, admin, { 'Idempotency-Key': 'overflow-1' }), 'personaOneInventoryItems.0.quantity');
      expectOutOfRange(await transact(body, admin, { 'Idempotency-Key': 'overflow-1' }), 'personaOneInventoryItems.0.quantity');

      expect(await tableCounts()).toEqual(before);
      expect(await holdings(player.personaUid)).toEqual({ [coins]: MAX_QUANTITY });
    });

    it('refuses a gift that would overflow what persona two holds, and moves nothing from persona one', async () => {
      const pair = await tradingPair();
      await awardMany(pair.two.personaUid, pair.sword, MAX_QUANTITY - 1);
      const before = await tableCounts();

      const response = await transact(
        {
          personaOneUid: pair.one.personaUid,
          personaTwoUid: pair.two.personaUid,
          personaOneInventoryItems: [{ itemUid: pair.sword, quantity: 2 }],
        },
        pair.one.token,
      );

      expectOutOfRange(response, 'personaOneInventoryItems.0.quantity');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8, [pair.sword]: MAX_QUANTITY - 1 });
      expect(await tableCounts()).toEqual(before);
    });

    it('refuses the accept of a trade that would now overflow persona one with 400; it stays PENDING and can still be declined', async () => {
      const pair = await tradingPair();
      const pending = (await transact(swordsForGold(pair), pair.one.token)).body as TransactionBody;
      expect(pending.status).toBe('PENDING');
      await awardMany(pair.one.personaUid, pair.gold, MAX_QUANTITY - 4);
      const before = await tableCounts();

      const response = await api.post<TransactionReply>(`/transactions/${pending.uid}/accept`, undefined, { token: pair.two.token });

      expectOutOfRange(response, 'personaTwoInventoryItems.0.quantity');
      expect(await readTransaction(pending.uid)).toMatchObject({ status: 'PENDING', version: pending.version });
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10, [pair.gold]: MAX_QUANTITY - 4 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 8 });
      expect(await ledgerOf(pending.uid)).toEqual([]);
      expect(await tableCounts()).toEqual(before);
      const declined = await api.post<TransactionBody>(`/transactions/${pending.uid}/decline`, undefined, { token: pair.two.token });
      expect(declined.body.status).toBe('DECLINED');
    });

    it('lets a trade net out below the limit: persona one, full of gold, receives 3 gold while giving 5', async () => {
      const pair = await tradingPair();
      await awardMany(pair.one.personaUid, pair.gold, MAX_QUANTITY);

      const response = await transact(
        {
          personaOneUid: pair.one.personaUid,
          personaTwoUid: pair.two.personaUid,
          personaOneInventoryItems: [{ itemUid: pair.gold, quantity: 5 }],
          personaTwoInventoryItems: [{ itemUid: pair.gold, quantity: 3 }],
        },
        admin,
      );

      expect(response.status).toBe(200);
      expect(response.body.status).toBe('COMPLETED');
      expect(await holdings(pair.one.personaUid)).toEqual({ [pair.sword]: 10, [pair.gold]: MAX_QUANTITY - 2 });
      expect(await holdings(pair.two.personaUid)).toEqual({ [pair.gold]: 10 });
    });
  });

  describe('validation of a transaction', () => {
    interface Context {
      one: Player;
      two: Player;
      sword: string;
    }
    type Case = [string, 'player' | 'admin', (context: Context) => Record<string, unknown>, string];

    const gift = ({ one, two, sword }: Context, quantity: unknown = 1) => ({
      personaOneUid: one.personaUid,
      personaTwoUid: two.personaUid,
      personaOneInventoryItems: [{ itemUid: sword, quantity }],
    });

    /** A gift whose list of persona one is `items`. */
    const giving = (c: Context, items: unknown) => ({ ...gift(c), personaOneInventoryItems: items });
    const QUANTITY = 'personaOneInventoryItems.0.quantity';

    const cases: Case[] = [
      ['an unknown item', 'player', (c) => giving(c, [{ itemUid: randomUUID(), quantity: 1 }]), 'itemUid'],
      ['an unknown persona two', 'player', (c) => ({ ...gift(c), personaTwoUid: randomUUID() }), 'personaTwoUid'],
      ['an unknown persona one', 'admin', (c) => ({ ...gift(c), personaOneUid: randomUUID() }), 'personaOneUid'],
      ['persona two the same as persona one', 'player', (c) => ({ ...gift(c), personaTwoUid: c.one.personaUid }), 'personaTwoUid'],
      ['a TRADE without personaTwoUid', 'player', (c) => ({ ...gift(c), personaTwoUid: undefined }), 'personaTwoUid'],
      ['personaTwoUid on an AWARD', 'admin', (c) => ({ ...gift(c), type: 'AWARD' }), 'personaTwoUid'],
      [
        'personaTwoInventoryItems on a REMOVAL',
        'admin',
        (c) => ({ ...gift(c), type: 'REMOVAL', personaTwoUid: undefined, personaTwoInventoryItems: [{ itemUid: c.sword, quantity: 1 }] }),
        'personaTwoInventoryItems',
      ],
      [
        'an item listed twice',
        'player',
        (c) =>
          giving(c, [
            { itemUid: c.sword, quantity: 1 },
            { itemUid: c.sword, quantity: 2 },
          ]),
        'personaOneInventoryItems',
      ],
      ['quantity 0', 'player', (c) => gift(c, 0), QUANTITY],
      ['quantity -1', 'player', (c) => gift(c, -1), QUANTITY],
      ['quantity 1.5', 'player', (c) => gift(c, 1.5), QUANTITY],
      ['quantity "2" (a string)', 'player', (c) => gift(c, '2'), QUANTITY],
      ['a missing quantity', 'admin', (c) => giving(c, [{ itemUid: c.sword }]), QUANTITY],
      ['an empty trade', 'player', (c) => ({ ...giving(c, []), personaTwoInventoryItems: [] }), 'personaOneInventoryItems'],
      [
        'an AWARD of nothing',
        'admin',
        (c) => ({ type: 'AWARD', personaOneUid: c.one.personaUid, personaOneInventoryItems: [] }),
        'personaOneInventoryItems',
      ],
      ['an unknown field', 'player', (c) => ({ ...gift(c), price: 10 }), 'price'],
      [
        'an unknown field in an item entry',
        'player',
        (c) => giving(c, [{ itemUid: c.sword, quantity: 1, bonus: 1 }]),
        'personaOneInventoryItems.0.bonus',
      ],
      ['an unknown type', 'admin', (c) => ({ ...gift(c), type: 'THEFT' }), 'type'],
      ['a malformed personaOneUid', 'admin', (c) => ({ ...gift(c), personaOneUid: 'persona-1' }), 'personaOneUid'],
      ['a malformed itemUid', 'player', (c) => giving(c, [{ itemUid: 'sword', quantity: 1 }]), 'personaOneInventoryItems.0.itemUid'],
      ['items that are not a list', 'player', (c) => giving(c, { itemUid: c.sword, quantity: 1 }), 'personaOneInventoryItems'],
    ];

    it.each(cases)('refuses %s with 400 VALIDATION_FAILED naming the field; nothing stored or moved', async (_case, who, build, field) => {
      const [one, two] = [await newPlayer(), await newPlayer()];
      const sword = await createItem('Validated sword');
      await award(one.personaUid, sword, 5);
      const before = await tableCounts();

      const response = await transact(build({ one, two, sword }), who === 'admin' ? admin : one.token);

      expectValidationError(response, field);
      expect(await tableCounts()).toEqual(before);
      expect(await holdings(one.personaUid)).toEqual({ [sword]: 5 });
      expect(await holdings(two.personaUid)).toEqual({});
    });

    it('refuses a body that is not a JSON object with 400', async () => {
      const before = await tableCounts();

      expectErrorBody(await transact([] as unknown as Record<string, unknown>, admin), 400, 'VALIDATION_FAILED');
      const malformed = await api.post('/inventories/transaction', '{"type": "AWA', { token: admin });
      expect(malformed.status).toBe(400);
      expect(await tableCounts()).toEqual(before);
    });
  });

  describe('Idempotency-Key', () => {
    async function giftPair(quantity: number) {
      const [giver, receiver] = [await newPlayer(), await newPlayer()];
      const pearl = await createItem('Pearl');
      await award(giver.personaUid, pearl, quantity);
      return { giver, receiver, pearl };
    }

    const giftOf = (giver: Player, receiver: Player, itemUid: string, quantity: number) => ({
      personaOneUid: giver.personaUid,
      personaTwoUid: receiver.personaUid,
      personaOneInventoryItems: [{ itemUid, quantity }],
    });

    it('returns the original transaction to a retry with the same key, and moves the quantities once', async () => {
      const { giver, receiver, pearl } = await giftPair(10);
      const before = await tableCounts();
      const headers = { 'idempotency-key': `gift-${randomUUID()}` };

      const first = await transact(giftOf(giver, receiver, pearl, 3), giver.token, headers);
      const retry = await transact(giftOf(giver, receiver, pearl, 3), giver.token, headers);

      expect(first.status).toBe(200);
      expect(first.body.status).toBe('COMPLETED');
      expect(retry.status).toBe(200);
      expect(retry.body.uid).toBe(first.body.uid);
      expect(retry.body).toEqual(first.body);
      expect(await holdings(giver.personaUid)).toEqual({ [pearl]: 7 });
      expect(await holdings(receiver.personaUid)).toEqual({ [pearl]: 3 });
      expect(await ledgerOf(first.body.uid)).toHaveLength(2);
      expect(await tableCounts()).toEqual({ ledger: before.ledger + 2, transactions: before.transactions + 1 });
    });

    it('refuses a different request with a used key: 409 IDEMPOTENCY_KEY_REUSED, nothing more moved', async () => {
      const { giver, receiver, pearl } = await giftPair(10);
      const headers = { 'idempotency-key': `gift-${randomUUID()}` };
      const first = await transact(giftOf(giver, receiver, pearl, 3), giver.token, headers);
      expect(first.status).toBe(200);
      const before = await tableCounts();

      const reused = await transact(giftOf(giver, receiver, pearl, 4), giver.token, headers);

      expectErrorBody(reused, 409, 'IDEMPOTENCY_KEY_REUSED');
      expect(await holdings(giver.personaUid)).toEqual({ [pearl]: 7 });
      expect(await holdings(receiver.personaUid)).toEqual({ [pearl]: 3 });
      expect(await tableCounts()).toEqual(before);
    });

    it('answers 10 concurrent requests with one key with the same transaction, moved once', async () => {
      const { giver, receiver, pearl } = await giftPair(10);
      const before = await tableCounts();
      const headers = { 'idempotency-key': `burst-${randomUUID()}` };

      const responses = await Promise.all(
        Array.from({ length: 10 }, () => transact(giftOf(giver, receiver, pearl, 2), giver.token, headers)),
      );

      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
      const uids = new Set(responses.map((response) => response.body.uid));
      expect(uids.size).toBe(1);
      for (const response of responses) expect(response.body.status).toBe('COMPLETED');
      expect(await holdings(giver.personaUid)).toEqual({ [pearl]: 8 });
      expect(await holdings(receiver.personaUid)).toEqual({ [pearl]: 2 });
      expect(await tableCounts()).toEqual({ ledger: before.ledger + 2, transactions: before.transactions + 1 });
    });

    it('answers a retried short request with 409 again and the same FAILED transactionUid', async () => {
      const { giver, receiver, pearl } = await giftPair(1);
      const before = await tableCounts();
      const headers = { 'idempotency-key': `short-${randomUUID()}` };

      const first = await transact(giftOf(giver, receiver, pearl, 5), giver.token, headers);
      const retry = await transact(giftOf(giver, receiver, pearl, 5), giver.token, headers);

      expectErrorBody(first, 409, 'INSUFFICIENT_QUANTITY');
      expectErrorBody(retry, 409, 'INSUFFICIENT_QUANTITY');
      expect(first.body.transactionUid).toMatch(UUID_V4);
      expect(retry.body.transactionUid).toBe(first.body.transactionUid);
      expect((await readTransaction(first.body.transactionUid!)).status).toBe('FAILED');
      expect(await holdings(giver.personaUid)).toEqual({ [pearl]: 1 });
      expect(await holdings(receiver.personaUid)).toEqual({});
      expect(await tableCounts()).toEqual({ ledger: before.ledger, transactions: before.transactions + 1 });
    });

    it('keeps keys apart per player: the same key from two players makes two transactions', async () => {
      const first = await giftPair(5);
      const second = await giftPair(5);
      const headers = { 'idempotency-key': `shared-${randomUUID()}` };

      const a = await transact(giftOf(first.giver, first.receiver, first.pearl, 1), first.giver.token, headers);
      const b = await transact(giftOf(second.giver, second.receiver, second.pearl, 2), second.giver.token, headers);

      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.body.uid).not.toBe(a.body.uid);
      expect(b.body.personaOneUid).toBe(second.giver.personaUid);
      expect(await holdings(first.receiver.personaUid)).toEqual({ [first.pearl]: 1 });
      expect(await holdings(second.receiver.personaUid)).toEqual({ [second.pearl]: 2 });
    });

    it.each([
      ['300 characters', 'k'.repeat(300)],
      ['a space', 'two words'],
    ])('refuses a malformed key (%s) with 400 and stores nothing', async (_case, key) => {
      const { giver, receiver, pearl } = await giftPair(5);
      const before = await tableCounts();

      const response = await transact(giftOf(giver, receiver, pearl, 1), giver.token, { 'idempotency-key': key });

      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      expect(await tableCounts()).toEqual(before);
      expect(await holdings(giver.personaUid)).toEqual({ [pearl]: 5 });
    });
  });

  describe('who sees a transaction', () => {
    it("shows a trade to persona one's and persona two's owners and the admin, not to a stranger", async () => {
      const pair = await tradingPair();
      const stranger = await newPlayer();
      const trade = (await transact(swordsForGold(pair), pair.one.token)).body;

      for (const token of [pair.one.token, pair.two.token, admin]) {
        const list = await api.get<TransactionBody[]>('/transactions?limit=1000', { token });
        const count = await api.get<CountBody>(`/transactions/count?uid=${trade.uid}`, { token });
        const found = await api.get<TransactionBody>(`/transactions/${trade.uid}`, { token });
        expect(list.status).toBe(200);
        expect(list.body).toContainEqual(trade);
        expect(count.body).toEqual({ count: 1 });
        expect(found.status).toBe(200);
        expect(found.body).toEqual(trade);
        expect(found.body).not.toHaveProperty('createdByUid');
        expect(found.body).not.toHaveProperty('idempotencyKey');
        expect(found.body).not.toHaveProperty('requestHash');
      }

      const strangerList = await api.get<TransactionBody[]>('/transactions?limit=1000', { token: stranger.token });
      const strangerCount = await api.get<CountBody>(`/transactions/count?uid=${trade.uid}`, { token: stranger.token });
      expect(strangerList.status).toBe(200);
      expect(strangerList.body.map((transaction) => transaction.uid)).not.toContain(trade.uid);
      expect(strangerCount.body).toEqual({ count: 0 });
      expectErrorBody(await api.get(`/transactions/${trade.uid}`, { token: stranger.token }), 404, 'NOT_FOUND');
    });

    it("counts a player's transactions as the number listed: their awards and trades only", async () => {
      const pair = await tradingPair();
      await transact(swordsForGold(pair), pair.one.token);

      const list = await api.get<TransactionBody[]>('/transactions?limit=1000', { token: pair.two.token });
      const count = await api.get<CountBody>('/transactions/count', { token: pair.two.token });

      // persona two's award of gold, and the pending trade.
      expect(list.body.map((transaction) => transaction.type).sort()).toEqual(['AWARD', 'TRADE']);
      expect(count.body).toEqual({ count: 2 });
      const pending = await api.get<TransactionBody[]>('/transactions?status=PENDING', { token: pair.two.token });
      expect(pending.body).toHaveLength(1);
    });
  });

  describe('the ledger', () => {
    it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE of its rows', async () => {
      const [giver, receiver] = [await newPlayer(), await newPlayer()];
      const salt = await createItem('Salt');
      await award(giver.personaUid, salt, 6);
      const gift = await transact(
        { personaOneUid: giver.personaUid, personaTwoUid: receiver.personaUid, personaOneInventoryItems: [{ itemUid: salt, quantity: 2 }] },
        giver.token,
      );
      expect(gift.status).toBe(200);
      const entries = await ledgerOf(gift.body.uid);
      expect(entries).toEqual([
        { personaUid: giver.personaUid, itemUid: salt, delta: -2 },
        { personaUid: receiver.personaUid, itemUid: salt, delta: 2 },
      ]);
      const before = await tableCounts();

      await expect(
        api.database.query('UPDATE inventory_ledger SET delta = 1 WHERE "transactionUid" = $1', [gift.body.uid]),
      ).rejects.toThrow(/append-only/);
      await expect(api.database.query('DELETE FROM inventory_ledger WHERE "transactionUid" = $1', [gift.body.uid])).rejects.toThrow(
        /append-only/,
      );
      await expect(api.database.query('DELETE FROM inventory_ledger')).rejects.toThrow(/append-only/);
      await expect(api.database.query('TRUNCATE inventory_ledger')).rejects.toThrow();

      expect(await ledgerOf(gift.body.uid)).toEqual(entries);
      expect(await tableCounts()).toEqual(before);
    });

    it('refuses a negative quantity in the database itself', async () => {
      const player = await newPlayer();
      const iron = await createItem('Iron');
      await award(player.personaUid, iron, 1);

      await expect(
        api.database.query('UPDATE inventory_items SET quantity = -1 WHERE "personaUid" = $1', [player.personaUid]),
      ).rejects.toThrow(/inventory_items_quantity_check/);
      expect(await holdings(player.personaUid)).toEqual({ [iron]: 1 });
    });
  });

  describe('items held by personas', () => {
    it('refuses to delete an item some persona holds with 409, and the item and holding stay', async () => {
      const player = await newPlayer();
      const relic = await createItem('Relic');
      await award(player.personaUid, relic, 1);

      const response = await api.delete(`/items/${relic}`, { token: admin });

      expectErrorBody(response, 409, 'CONFLICT');
      const item = await api.get<ItemBody>(`/items/${relic}`, { token: admin });
      expect(item.status).toBe(200);
      expect(item.body).toMatchObject({ uid: relic, name: 'Relic' });
      expect(await holdings(player.personaUid)).toEqual({ [relic]: 1 });
    });
  });
});
