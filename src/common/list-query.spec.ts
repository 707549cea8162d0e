import { ApiException, ErrorCode } from './errors.js';
import { MAX_PARAMETER_LENGTH, parseListQuery, type QueryableFields } from './list-query.js';

const COMMON_FIELDS = { uid: 'uuid', dateCreated: 'date', dateModified: 'date', version: 'integer' } as const satisfies QueryableFields;

/** A resource with one field of every type the parser knows. */
const FIELDS = {
  ...COMMON_FIELDS,
  name: 'string',
  cost: 'number',
  level: 'integer',
  ownerUid: 'uuid',
  active: 'boolean',
  releasedAt: 'date',
  status: { enum: ['OPEN', 'CLOSED'] },
} as const satisfies QueryableFields;

type Raw = Record<string, string | string[] | undefined>;

const parse = (raw: Raw) => parseListQuery(raw, FIELDS);

/** Asserts that `raw` is refused as 400 VALIDATION_FAILED with an `errors` entry for `field`. */
function expectRefused(raw: Raw, field: string): ApiException {
  let thrown: unknown;
  try {
    parse(raw);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiException);
  const error = thrown as ApiException;
  expect(error.getStatus()).toBe(400);
  expect(error.code).toBe(ErrorCode.VALIDATION_FAILED);
  expect(error.extra.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  return error;
}

const DEFAULT_ORDER = [
  { field: 'dateCreated', direction: 'ASC' },
  { field: 'uid', direction: 'ASC' },
];

describe('parseListQuery', () => {
  describe('defaults', () => {
    it('gives limit 100, skip 0, creation order and no filters for an empty query', () => {
      expect(parse({})).toEqual({ limit: 100, skip: 0, order: DEFAULT_ORDER, filters: [] });
    });

    it('treats parameters that are present but undefined as absent', () => {
      expect(parse({ limit: undefined, skip: undefined, sort: undefined })).toEqual({
        limit: 100,
        skip: 0,
        order: DEFAULT_ORDER,
        filters: [],
      });
    });

    it('leaves reserved parameters of the route out of the filters', () => {
      expect(parseListQuery({ password: 'secret', name: 'Sword' }, FIELDS, ['password']).filters).toEqual([
        { field: 'name', operator: 'eq', values: ['Sword'] },
      ]);
    });
  });

  describe('limit', () => {
    it.each([
      ['1', 1],
      ['50', 50],
      ['1000', 1000],
    ])('accepts limit=%s', (limit, expected) => {
      expect(parse({ limit }).limit).toBe(expected);
    });

    it.each(['0', '1001', '-1', '1.5', 'abc', '1e2', '99999999999999999999'])('refuses limit=%s with 400', (limit) => {
      expectRefused({ limit }, 'limit');
    });

    it('says what the upper bound is when limit exceeds 1000', () => {
      expect(expectRefused({ limit: '1001' }, 'limit').message).toContain('1000');
    });
  });

  describe('skip', () => {
    it.each([
      ['0', 0],
      ['250', 250],
    ])('accepts skip=%s', (skip, expected) => {
      expect(parse({ skip }).skip).toBe(expected);
    });

    it.each(['-1', '1.5', 'abc', '99999999999999999999'])('refuses skip=%s with 400', (skip) => {
      expectRefused({ skip }, 'skip');
    });
  });

  describe('sort', () => {
    it('reads a JSON object of fields and orders, in the given order, and ends with uid', () => {
      expect(parse({ sort: '{"name":"ASC","cost":"desc"}' }).order).toEqual([
        { field: 'name', direction: 'ASC' },
        { field: 'cost', direction: 'DESC' },
        { field: 'uid', direction: 'ASC' },
      ]);
    });

    it('reads a bare field name as ascending', () => {
      expect(parse({ sort: 'name' }).order).toEqual([
        { field: 'name', direction: 'ASC' },
        { field: 'uid', direction: 'ASC' },
      ]);
    });

    it('reads the bracket form sort[field]=ORDER', () => {
      expect(parse({ 'sort[name]': 'DESC' }).order).toEqual([
        { field: 'name', direction: 'DESC' },
        { field: 'uid', direction: 'ASC' },
      ]);
    });

    it('reads several bracket parameters in the order given', () => {
      expect(parse({ 'sort[cost]': 'desc', 'sort[name]': 'asc' }).order).toEqual([
        { field: 'cost', direction: 'DESC' },
        { field: 'name', direction: 'ASC' },
        { field: 'uid', direction: 'ASC' },
      ]);
    });

    it.each(['asc', 'Asc', 'aSC', 'desc', 'Desc', 'DESC'])('accepts the order %s in any case', (direction) => {
      expect(parse({ sort: JSON.stringify({ cost: direction }) }).order[0]).toEqual({
        field: 'cost',
        direction: direction.toUpperCase(),
      });
      expect(parse({ 'sort[cost]': direction }).order[0]).toEqual({ field: 'cost', direction: direction.toUpperCase() });
    });

    it('does not append uid when the client sorts on it already', () => {
      expect(parse({ sort: '{"uid":"DESC"}' }).order).toEqual([{ field: 'uid', direction: 'DESC' }]);
      expect(parse({ sort: '{"uid":"DESC","name":"ASC"}' }).order).toEqual([
        { field: 'uid', direction: 'DESC' },
        { field: 'name', direction: 'ASC' },
      ]);
    });

    it('sorts on the common fields', () => {
      expect(parse({ sort: '{"dateModified":"DESC","version":"ASC"}' }).order).toEqual([
        { field: 'dateModified', direction: 'DESC' },
        { field: 'version', direction: 'ASC' },
        { field: 'uid', direction: 'ASC' },
      ]);
    });

    it.each([
      [{ sort: '{"colour":"ASC"}' }, 'sort.colour'],
      [{ sort: 'colour' }, 'sort.colour'],
      [{ 'sort[colour]': 'DESC' }, 'sort.colour'],
      [{ sort: '{"name; DROP TABLE items":"ASC"}' }, 'sort.name; DROP TABLE items'],
    ])('refuses a sort on an unknown field (%j) with 400', (raw, field) => {
      expectRefused(raw, field);
    });

    it.each([
      [{ sort: '{"__proto__":"ASC"}' }, 'sort.__proto__'],
      [{ sort: '{"constructor":"ASC"}' }, 'sort.constructor'],
      [{ sort: 'toString' }, 'sort.toString'],
      [{ 'sort[constructor]': 'ASC' }, 'sort.constructor'],
      [{ 'sort[__proto__]': 'DESC' }, 'sort.__proto__'],
    ])('refuses a sort on a name every JavaScript object inherits (%j) with 400', (raw, field) => {
      expectRefused(raw, field);
    });

    it.each([
      [{ sort: '{"name":"UP"}' }],
      [{ sort: '{"name":""}' }],
      [{ sort: '{"name":1}' }],
      [{ sort: '{"name":null}' }],
      [{ 'sort[name]': 'sideways' }],
      [{ 'sort[name]': '' }],
    ])('refuses an order that is not ASC or DESC (%j) with 400', (raw) => {
      expectRefused(raw, 'sort.name');
    });

    it.each(['{"name":', '{name:"ASC"}', '{"name":"ASC"'])('refuses malformed JSON sort=%s with 400', (sort) => {
      expectRefused({ sort }, 'sort');
    });

    it.each(['{}x', '["name"]', 'null'])('refuses sort=%s, which is neither an object nor a field', (sort) => {
      expect(() => parse({ sort })).toThrow(ApiException);
    });

    it('refuses sort=... and sort[field]=... given together', () => {
      expectRefused({ sort: 'name', 'sort[cost]': 'DESC' }, 'sort');
    });

    it('refuses sort given twice', () => {
      expectRefused({ sort: ['name', 'cost'] }, 'sort');
    });

    it('refuses the same bracket sort given twice', () => {
      expectRefused({ 'sort[name]': ['ASC', 'DESC'] }, 'sort[name]');
    });
  });

  describe('filters', () => {
    it('reads field=value as equality', () => {
      expect(parse({ name: 'Sword' }).filters).toEqual([{ field: 'name', operator: 'eq', values: ['Sword'] }]);
    });

    it('reads several filters, each on its own field', () => {
      expect(parse({ name: 'Sword', cost: 'gt(5)', limit: '10' }).filters).toEqual([
        { field: 'name', operator: 'eq', values: ['Sword'] },
        { field: 'cost', operator: 'gt', values: [5] },
      ]);
    });

    it.each([
      ['ne(3)', 'ne', [3]],
      ['gt(5)', 'gt', [5]],
      ['gte(5.5)', 'gte', [5.5]],
      ['lt(-2)', 'lt', [-2]],
      ['lte(1e3)', 'lte', [1000]],
      ['in(1,2,3)', 'in', [1, 2, 3]],
      ['in(7)', 'in', [7]],
      ['range(2,4)', 'range', [2, 4]],
      ['range( 2 , 4 )', 'range', [2, 4]],
    ])('reads cost=%s as operator %s with values %j', (value, operator, values) => {
      expect(parse({ cost: value }).filters).toEqual([{ field: 'cost', operator, values }]);
    });

    it('reads like(text) on a text field and leaves % and _ for the database layer to escape', () => {
      expect(parse({ name: 'like(ORD)' }).filters).toEqual([{ field: 'name', operator: 'like', values: ['ORD'] }]);
      expect(parse({ name: 'like(50%_off)' }).filters).toEqual([{ field: 'name', operator: 'like', values: ['50%_off'] }]);
    });

    it('keeps a text value that only looks like SQL as a plain value', () => {
      expect(parse({ name: "x' OR '1'='1" }).filters).toEqual([{ field: 'name', operator: 'eq', values: ["x' OR '1'='1"] }]);
    });

    it('takes a parameter up to MAX_PARAMETER_LENGTH characters, as the document states: in() of a hundred uuids, spaced', () => {
      const uids = Array.from({ length: 100 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);
      const spaced = `in( ${uids.join(' , ')} )`;
      expect(spaced.length).toBeLessThanOrEqual(MAX_PARAMETER_LENGTH);
      expect(parse({ ownerUid: spaced }).filters[0].values).toHaveLength(100);
      expectRefused({ name: 'x'.repeat(MAX_PARAMETER_LENGTH + 1) }, 'name');
      expectRefused({ sort: ` ${'name'.padEnd(MAX_PARAMETER_LENGTH, ' ')}` }, 'sort');
    });

    it('reads in(...) on a text field as several values', () => {
      expect(parse({ name: 'in(Sword,Shield)' }).filters).toEqual([{ field: 'name', operator: 'in', values: ['Sword', 'Shield'] }]);
    });

    describe('typed values', () => {
      it('turns numbers into numbers', () => {
        expect(parse({ cost: '12.5' }).filters[0].values).toEqual([12.5]);
        expect(parse({ cost: '-3' }).filters[0].values).toEqual([-3]);
      });

      it('turns integers into numbers and refuses fractions and out-of-range values', () => {
        expect(parse({ level: '7' }).filters[0].values).toEqual([7]);
        expectRefused({ level: '7.5' }, 'level');
        expectRefused({ level: '99999999999' }, 'level');
      });

      it('lower-cases UUIDs', () => {
        expect(parse({ ownerUid: 'A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D' }).filters).toEqual([
          { field: 'ownerUid', operator: 'eq', values: ['a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'] },
        ]);
        expect(
          parse({ ownerUid: 'in(A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D,11111111-2222-4333-8444-555555555555)' }).filters[0].values,
        ).toEqual(['a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', '11111111-2222-4333-8444-555555555555']);
      });

      it('reads true and false as booleans', () => {
        expect(parse({ active: 'true' }).filters[0].values).toEqual([true]);
        expect(parse({ active: 'false' }).filters[0].values).toEqual([false]);
        expect(parse({ active: 'ne(true)' }).filters).toEqual([{ field: 'active', operator: 'ne', values: [true] }]);
      });

      it('turns dates into ISO 8601 UTC', () => {
        expect(parse({ releasedAt: '2026-11-22' }).filters[0].values).toEqual(['2026-11-22T00:00:00.000Z']);
        expect(parse({ releasedAt: 'gte(2026-11-22T11:38:09.291+02:00)' }).filters).toEqual([
          { field: 'releasedAt', operator: 'gte', values: ['2026-11-22T09:38:09.291Z'] },
        ]);
        expect(parse({ dateCreated: 'range(2026-01-01T00:00:00Z,2026-12-31T23:59:59.999Z)' }).filters[0].values).toEqual([
          '2026-01-01T00:00:00.000Z',
          '2026-12-31T23:59:59.999Z',
        ]);
      });

      it('accepts the values of an enum field only', () => {
        expect(parse({ status: 'OPEN' }).filters[0].values).toEqual(['OPEN']);
        expect(parse({ status: 'in(OPEN,CLOSED)' }).filters[0].values).toEqual(['OPEN', 'CLOSED']);
        expectRefused({ status: 'PENDING' }, 'status');
      });
    });

    it.each([
      [{ colour: 'red' }, 'colour'],
      [{ stats: 'x' }, 'stats'],
      [{ password: 'x' }, 'password'],
    ])('refuses a filter on an unknown field (%j) with 400', (raw, field) => {
      expectRefused(raw, field);
    });

    it.each([
      [{ cost: 'abc' }, 'cost'],
      [{ cost: '' }, 'cost'],
      [{ cost: 'gt()' }, 'cost'],
      [{ cost: 'gt(abc)' }, 'cost'],
      [{ cost: 'GT(5)' }, 'cost'],
      [{ cost: '1; DROP TABLE items' }, 'cost'],
      [{ cost: 'range(1)' }, 'cost'],
      [{ cost: 'range(1,2,3)' }, 'cost'],
      [{ cost: 'in(1,x)' }, 'cost'],
      [{ cost: 'like(5)' }, 'cost'],
      [{ ownerUid: 'like(abc)' }, 'ownerUid'],
      [{ ownerUid: 'not-a-uuid' }, 'ownerUid'],
      [{ active: 'yes' }, 'active'],
      [{ active: 'gt(true)' }, 'active'],
      [{ releasedAt: 'yesterday' }, 'releasedAt'],
      [{ releasedAt: '2026-13-45' }, 'releasedAt'],
    ])('refuses the malformed filter %j with 400', (raw, field) => {
      expectRefused(raw, field);
    });

    it('refuses a like() text longer than 1000 characters', () => {
      expectRefused({ name: `like(${'x'.repeat(1001)})` }, 'name');
    });

    it('refuses in() with more than 100 values', () => {
      expectRefused({ cost: `in(${Array.from({ length: 101 }, (_, index) => index).join(',')})` }, 'cost');
    });

    it('refuses a filter given twice', () => {
      expectRefused({ name: ['Sword', 'Shield'] }, 'name');
    });

    it('refuses limit or skip given twice', () => {
      expectRefused({ limit: ['1', '2'] }, 'limit');
      expectRefused({ skip: ['0', '5'] }, 'skip');
    });

    it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('refuses %s as a field name with 400', (field) => {
      // JSON.parse makes "__proto__" an own key, as Fastify's prototype-less query-string parser does.
      const raw = JSON.parse(`{"${field}":"x"}`) as Raw;
      expect(Object.keys(raw)).toEqual([field]);
      expectRefused(raw, field);
    });
  });
});
