import { TestApp, type TestResponse } from './support/test-app.js';
import type { CountBody, ErrorResponse, ItemBody } from './support/api-types.js';

/**
 * Twelve items with distinct names and costs. "Lord Cape" and "Ring" are created under "Sword"
 * (their parent); the description puts them in two groups, so that a sort on it has ties.
 */
const CATALOG: Array<{ name: string; cost: number; description: string; childOfSword?: true }> = [
  { name: 'Sword', cost: 7, description: 'weapon' },
  { name: 'Shield', cost: 3, description: 'armour' },
  { name: 'Bow', cost: 12, description: 'weapon' },
  { name: 'Arrow', cost: 1, description: 'weapon' },
  { name: 'Lord Cape', cost: 9, description: 'armour', childOfSword: true },
  { name: 'Helmet', cost: 4, description: 'armour' },
  { name: 'Cordial', cost: 2, description: 'potion' },
  { name: 'Boots', cost: 5.5, description: 'armour' },
  { name: 'Ring', cost: 11, description: 'armour', childOfSword: true },
  { name: '100% Elixir', cost: 6, description: 'potion' },
  { name: '1000 Elixir', cost: 8, description: 'potion' },
  { name: 'Amulet', cost: 10, description: 'armour' },
];

const byCostDescending = [...CATALOG].sort((a, b) => b.cost - a.cost).map((item) => item.name);
const byCostAscending = [...byCostDescending].reverse();

/** A query string from name/value pairs, encoded as a browser would. */
const query = (...pairs: Array<[string, string]>) => new URLSearchParams(pairs).toString();

describe('list queries on /items', () => {
  let api: TestApp;
  let admin: string;
  let created: ItemBody[];

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
    created = [];
    for (const { childOfSword, ...fields } of CATALOG) {
      const body = childOfSword ? { ...fields, parentUID: created[0].uid } : fields;
      const response = await api.post<ItemBody>('/items', body, { token: admin });
      if (response.status !== 201) throw new Error(`creating ${fields.name} failed: ${JSON.stringify(response.body)}`);
      created.push(response.body);
    }
  });

  afterAll(async () => {
    await api.close();
  });

  const list = (queryString: string) => api.get<ItemBody[]>(`/items?${queryString}`, { token: admin });
  const count = (queryString: string) => api.get<CountBody>(`/items/count?${queryString}`, { token: admin });

  function names(response: TestResponse<ItemBody[]>): string[] {
    expect(response.status).toBe(200);
    return response.body.map((item) => item.name);
  }

  function expectBadQuery(response: TestResponse<unknown>, field?: string): void {
    expect(response.status).toBe(400);
    const body = response.body as ErrorResponse;
    expect(body.code).toBe('VALIDATION_FAILED');
    if (field !== undefined) {
      expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
  }

  describe('limit and skip', () => {
    it('returns every item by default, as a bare array', async () => {
      const response = await list('');
      expect(names(response)).toHaveLength(CATALOG.length);
      expect(Array.isArray(response.body)).toBe(true);
    });

    it('returns at most `limit` items', async () => {
      expect(names(await list('limit=5'))).toHaveLength(5);
      expect(names(await list('limit=1'))).toHaveLength(1);
      expect(names(await list('limit=1000'))).toHaveLength(CATALOG.length);
    });

    it.each(['1001', '0', '-1', '2.5', 'ten'])('refuses limit=%s with 400 on list and count', async (limit) => {
      expectBadQuery(await list(query(['limit', limit])), 'limit');
      expectBadQuery(await count(query(['limit', limit])), 'limit');
    });

    it.each(['-1', '1.5', 'first'])('refuses skip=%s with 400', async (skip) => {
      expectBadQuery(await list(query(['skip', skip])), 'skip');
    });

    it('refuses limit given twice with 400', async () => {
      expectBadQuery(await list('limit=1&limit=2'), 'limit');
    });

    it('pages through every item with skip, without overlap and in a stable order', async () => {
      const everything = (await list('')).body.map((item) => item.uid);
      const pages = [];
      for (const skip of [0, 5, 10]) pages.push((await list(`limit=5&skip=${skip}`)).body.map((item) => item.uid));

      expect(pages.map((page) => page.length)).toEqual([5, 5, 2]);
      expect(new Set(pages.flat()).size).toBe(CATALOG.length);
      expect(pages.flat()).toEqual(everything);
      const again = (await list('limit=5&skip=5')).body.map((item) => item.uid);
      expect(again).toEqual(pages[1]);
      expect(names(await list('skip=12'))).toEqual([]);
      expect(names(await list('skip=100'))).toEqual([]);
    });

    it('pages without overlap even when the sort field has ties (uid breaks them)', async () => {
      const sort = encodeURIComponent('{"description":"ASC"}');
      const pages = [];
      for (const skip of [0, 5, 10]) pages.push((await list(`sort=${sort}&limit=5&skip=${skip}`)).body);
      const items = pages.flat();

      expect(new Set(items.map((item) => item.uid)).size).toBe(CATALOG.length);
      const expected = [...created].sort((a, b) =>
        a.description! < b.description! ? -1 : a.description! > b.description! ? 1 : a.uid < b.uid ? -1 : 1,
      );
      expect(items.map((item) => item.uid)).toEqual(expected.map((item) => item.uid));
    });
  });

  describe('sort', () => {
    it('lists in creation order by default (dateCreated, then uid)', async () => {
      const listed = (await list('')).body;

      for (let index = 1; index < created.length; index += 1) {
        expect(Date.parse(created[index].dateCreated)).toBeGreaterThanOrEqual(Date.parse(created[index - 1].dateCreated));
      }
      const expected = [...created].sort((a, b) =>
        a.dateCreated < b.dateCreated ? -1 : a.dateCreated > b.dateCreated ? 1 : a.uid < b.uid ? -1 : 1,
      );
      expect(listed.map((item) => item.uid)).toEqual(expected.map((item) => item.uid));
      if (new Set(created.map((item) => item.dateCreated)).size === created.length) {
        expect(listed.map((item) => item.name)).toEqual(CATALOG.map((item) => item.name));
      }
    });

    it('sorts by cost descending with a JSON object', async () => {
      expect(names(await list(query(['sort', '{"cost":"DESC"}'])))).toEqual(byCostDescending);
      expect(names(await list(query(['sort', '{"cost":"desc"}'])))).toEqual(byCostDescending);
    });

    it('sorts by cost descending with the bracket form sort[cost]=DESC', async () => {
      expect(names(await list(query(['sort[cost]', 'DESC'])))).toEqual(byCostDescending);
      expect(names(await list('sort[cost]=Desc'))).toEqual(byCostDescending);
    });

    it('sorts ascending on a bare field name', async () => {
      expect(names(await list('sort=cost'))).toEqual(byCostAscending);
      expect(names(await list(query(['sort', '{"cost":"asc"}'])))).toEqual(byCostAscending);
    });

    it('sorts on several fields in the order given', async () => {
      const response = await list(query(['sort', '{"description":"DESC","cost":"ASC"}']));
      const expected = [...CATALOG]
        .sort((a, b) => (a.description !== b.description ? (a.description < b.description ? 1 : -1) : a.cost - b.cost))
        .map((item) => item.name);
      expect(names(response)).toEqual(expected);
    });

    it('pages through a sorted list', async () => {
      const sort = encodeURIComponent('{"cost":"DESC"}');
      const first = names(await list(`sort=${sort}&limit=4`));
      const second = names(await list(`sort=${sort}&limit=4&skip=4`));
      expect([...first, ...second]).toEqual(byCostDescending.slice(0, 8));
    });

    it.each([
      ['an unknown field (JSON)', ['sort', '{"colour":"ASC"}']],
      ['an unknown field (bare)', ['sort', 'colour']],
      ['an unknown field (bracket)', ['sort[colour]', 'ASC']],
      ['stats, which is not scalar', ['sort', '{"stats":"ASC"}']],
      ['stats, bare', ['sort', 'stats']],
      ['the internal ownerUid', ['sort', 'ownerUid']],
      ['an order that is not ASC or DESC', ['sort', '{"cost":"UPWARDS"}']],
      ['malformed JSON', ['sort', '{"cost":']],
      ['__proto__ (JSON)', ['sort', '{"__proto__":"ASC"}']],
    ] as Array<[string, [string, string]]>)('refuses a sort on %s with 400', async (_case, pair) => {
      expectBadQuery(await list(query(pair)));
      expectBadQuery(await count(query(pair)));
    });

    it('refuses a bracket sort on __proto__ with 400', async () => {
      expectBadQuery(await list(query(['sort[__proto__]', 'DESC'])));
    });

    it('refuses sort=... and sort[field]=... together with 400', async () => {
      expectBadQuery(await list(query(['sort', 'name'], ['sort[cost]', 'DESC'])), 'sort');
    });
  });

  describe('filters', () => {
    it('filters on equality', async () => {
      expect(names(await list('name=Bow'))).toEqual(['Bow']);
      expect(names(await list('cost=5.5'))).toEqual(['Boots']);
      expect(names(await list('name=bow'))).toEqual([]);
    });

    it('filters with gt, gte, lt, lte and ne', async () => {
      const costs = (response: TestResponse<ItemBody[]>) => {
        expect(response.status).toBe(200);
        return response.body.map((item) => item.cost).sort((a, b) => a - b);
      };
      expect(costs(await list(query(['cost', 'gt(5)'])))).toEqual([5.5, 6, 7, 8, 9, 10, 11, 12]);
      expect(costs(await list(query(['cost', 'gte(11)'])))).toEqual([11, 12]);
      expect(costs(await list(query(['cost', 'lt(3)'])))).toEqual([1, 2]);
      expect(costs(await list(query(['cost', 'lte(3)'])))).toEqual([1, 2, 3]);
      expect(costs(await list(query(['cost', 'ne(7)'])))).toHaveLength(CATALOG.length - 1);
      expect(costs(await list(query(['cost', 'ne(7)'])))).not.toContain(7);
    });

    it('filters with range(a,b), both ends included', async () => {
      expect(names(await list(query(['cost', 'range(2,4)'], ['sort', 'cost'])))).toEqual(['Cordial', 'Shield', 'Helmet']);
    });

    it('filters with like(), case-insensitive substring', async () => {
      expect(names(await list(query(['name', 'like(ORD)'], ['sort', 'name'])))).toEqual(['Cordial', 'Lord Cape', 'Sword']);
      expect(names(await list(query(['name', 'like(elixir)'])))).toHaveLength(2);
    });

    it('matches % and _ in a like() value literally', async () => {
      expect(names(await list(query(['name', 'like(0%)'])))).toEqual(['100% Elixir']);
      expect(names(await list(query(['name', 'like(%)'])))).toEqual(['100% Elixir']);
      expect(names(await list(query(['name', 'like(_)'])))).toEqual([]);
    });

    it('filters with in(a,b)', async () => {
      expect(names(await list(query(['name', 'in(Bow,Ring)'], ['sort', 'name'])))).toEqual(['Bow', 'Ring']);
      expect(names(await list(query(['cost', 'in(1,12,999)'], ['sort', 'cost'])))).toEqual(['Arrow', 'Bow']);
    });

    it('filters on parentUID, whatever the case of the uuid', async () => {
      const sword = created[0];
      expect(names(await list(query(['parentUID', sword.uid], ['sort', 'name'])))).toEqual(['Lord Cape', 'Ring']);
      expect(names(await list(query(['parentUID', sword.uid.toUpperCase()], ['sort', 'name'])))).toEqual(['Lord Cape', 'Ring']);
    });

    it('filters on the common fields', async () => {
      const bow = created[2];
      expect(names(await list(query(['uid', bow.uid])))).toEqual(['Bow']);
      expect(names(await list(query(['version', '0'])))).toHaveLength(CATALOG.length);
      expect(names(await list(query(['dateCreated', `gte(${created[0].dateCreated})`])))).toHaveLength(CATALOG.length);
      expect(names(await list(query(['dateCreated', 'lt(2000-01-01)'])))).toEqual([]);
    });

    it('combines filters with AND, and with sort and paging', async () => {
      const response = await list(query(['cost', 'gt(5)'], ['description', 'armour'], ['sort', '{"cost":"DESC"}'], ['limit', '2']));
      expect(names(response)).toEqual(['Ring', 'Amulet']);
    });

    it.each([
      ['an unknown field', ['colour', 'red'], 'colour'],
      ['stats, which is not scalar', ['stats', 'x'], 'stats'],
      ['the internal ownerUid', ['ownerUid', '00000000-0000-4000-8000-000000000000'], 'ownerUid'],
      ['__proto__', ['__proto__', 'x'], '__proto__'],
      ['a cost that is not a number', ['cost', 'abc'], 'cost'],
      ['a range with one value', ['cost', 'range(1)'], 'cost'],
      ['like() on a number', ['cost', 'like(5)'], 'cost'],
      ['a malformed uuid', ['parentUID', 'not-a-uuid'], 'parentUID'],
      ['a malformed date', ['dateCreated', 'yesterday'], 'dateCreated'],
    ] as Array<[string, [string, string], string]>)('refuses a filter with %s with 400', async (_case, pair, field) => {
      expectBadQuery(await list(query(pair)), field);
      expectBadQuery(await count(query(pair)), field);
    });

    it('refuses a filter given twice with 400', async () => {
      expectBadQuery(await list('name=Bow&name=Ring'), 'name');
    });
  });

  describe('count', () => {
    it('counts every item without filters', async () => {
      const response = await count('');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ count: CATALOG.length });
    });

    it('counts only the items matching the filters', async () => {
      expect((await count(query(['cost', 'gt(5)']))).body).toEqual({ count: 8 });
      expect((await count(query(['name', 'like(ord)']))).body).toEqual({ count: 3 });
      expect((await count(query(['parentUID', created[0].uid]))).body).toEqual({ count: 2 });
      expect((await count(query(['name', 'nothing like this']))).body).toEqual({ count: 0 });
    });

    it('is not capped by limit or skip', async () => {
      expect((await count('limit=1')).body).toEqual({ count: CATALOG.length });
      expect((await count('limit=1&skip=11')).body).toEqual({ count: CATALOG.length });
      expect((await count(query(['cost', 'gt(5)'], ['limit', '1'], ['skip', '3']))).body).toEqual({ count: 8 });
    });

    it('accepts a sort, which does not change the count', async () => {
      expect((await count(query(['sort', '{"cost":"DESC"}']))).body).toEqual({ count: CATALOG.length });
    });
  });

  describe('SQL injection', () => {
    it.each([
      ['sort', '{"name; DROP TABLE items":"ASC"}'],
      ['sort', 'name; DROP TABLE items'],
      ['sort', '{"name":"ASC; DROP TABLE items"}'],
      ['sort[name" ; DROP TABLE items; --]', 'ASC'],
      ['cost', 'gt(0) OR 1=1'],
      ['cost', '1; DROP TABLE items'],
      ['parentUID', "' OR '1'='1"],
      ['name; DROP TABLE items', 'x'],
    ])('refuses %s=%s with 400', async (name, value) => {
      expectBadQuery(await list(query([name, value])));
    });

    it.each([
      ['name', "x' OR '1'='1"],
      ['name', "x'; DROP TABLE items; --"],
      ['name', "like(%' OR '1'='1)"],
      ['name', "in(x') OR ('1'='1)"],
      ['description', 'ne(weapon) OR 1=1'],
    ])('treats %s=%s as a plain value and matches nothing', async (name, value) => {
      expect(names(await list(query([name, value])))).toEqual([]);
      expect((await count(query([name, value]))).body).toEqual({ count: 0 });
    });

    it('leaves the items table intact after the attempts', async () => {
      const attempts = [
        query(['sort', '{"name; DROP TABLE items":"ASC"}']),
        query(['name', "x'; DROP TABLE items; --"]),
        query(['name', "x' OR '1'='1"]),
      ];
      for (const attempt of attempts) await list(attempt);

      const { rows } = await api.database.query<{ count: string }>('SELECT count(*) AS count FROM items');
      expect(Number(rows[0].count)).toBe(CATALOG.length);
      expect((await count('')).body).toEqual({ count: CATALOG.length });
      expect(names(await list(''))).toHaveLength(CATALOG.length);
    });
  });
});
