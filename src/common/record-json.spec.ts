import { jest } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { ENTITIES } from '../database/data-source-options.js';
import { Item } from '../items/item.entity.js';
import { Leaderboard } from '../leaderboards/leaderboard.entity.js';
import { Persona } from '../personas/persona.entity.js';
import { lineage, secretFields } from './fields.js';
import { serializerFor } from './record-json.js';
import { RecordEntity } from './record.entity.js';

type RecordClass = new () => RecordEntity;

const SECRET_MARK = 'secret-value-never-sent';
const TEXT = 'quote " backslash \\ newline \n tab \t lone \ud800 surrogate, é and 🎮';

/** A value of a column's type, as pg gives it (or a transformer would). */
function valueOf(type: unknown, array: boolean | undefined, index: number): unknown {
  if (array) return [`${TEXT}${index}`, 'b'];
  switch (type) {
    case 'uuid':
      return crypto.randomUUID();
    case 'text':
    case 'varchar':
      return index % 2 ? `${TEXT}${index}` : 'short';
    case 'integer':
    case 'smallint':
      return -7 * index;
    case 'double precision':
      return index % 2 ? -1.5e-7 : 150.25;
    case 'boolean':
      return index % 2 === 0;
    case 'timestamptz':
      // A year below 1000 too: fast-json-stringify writes dates itself.
      return new Date(index % 3 ? Date.UTC(2026, 10, 26, 12, 0, index, 7) : Date.UTC(812, 0, 1));
    case 'bigint':
      return '9007199254740993';
    default:
      return { nested: [1, TEXT, null, { deeper: true }], n: index };
  }
}

/** Records of `entity` with a value in every column (every other one null in `nullable`), secrets set. */
function recordsOf(entity: RecordClass, count: number, nullable = false): RecordEntity[] {
  const columns = getMetadataArgsStorage().filterColumns(lineage(entity));
  const secrets = secretFields(entity);
  return Array.from({ length: count }, (_, index) => {
    const record = new entity() as unknown as Record<string, unknown>;
    columns.forEach((column, position) => {
      const { propertyName } = column;
      if (secrets?.has(propertyName)) record[propertyName] = SECRET_MARK;
      else if (nullable && position % 2) record[propertyName] = null;
      else record[propertyName] = valueOf(column.options.type, column.options.array, index + position);
    });
    return record as unknown as RecordEntity;
  });
}

const serialize = (payload: unknown) => serializerFor(payload)!(payload);

/** `payload`'s JSON by its compiled serializer, failing if that fell back to JSON.stringify of the whole. */
function compiledJson(payload: unknown): string {
  const stringify = jest.spyOn(JSON, 'stringify');
  try {
    const json = serialize(payload);
    expect(stringify.mock.calls.some(([value]) => value === payload)).toBe(false);
    return json;
  } finally {
    stringify.mockRestore();
  }
}

const recordEntities = (ENTITIES as unknown as RecordClass[]).filter((entity) => entity.prototype instanceof RecordEntity);

describe('record JSON (compiled serializers)', () => {
  it.each(recordEntities.map((entity) => [entity.name, entity]))(
    'writes the bytes JSON.stringify writes for %s, without its secret fields',
    (_name, entity) => {
      if (entity.prototype.toJSON !== RecordEntity.prototype.toJSON) {
        expect(serializerFor(recordsOf(entity, 1)[0])).toBeUndefined();
        return;
      }
      for (const nullable of [false, true]) {
        const records = recordsOf(entity, 5, nullable);
        expect(compiledJson(records)).toBe(JSON.stringify(records));
        expect(compiledJson(records[1])).toBe(JSON.stringify(records[1]));
        expect(compiledJson(records)).not.toContain(SECRET_MARK);
      }
    },
  );

  it('covers the catalog and players: items and personas have their serializers', () => {
    expect(recordEntities.length).toBeGreaterThan(10);
    expect(serializerFor(recordsOf(Item, 2))).toBeDefined();
    expect(serializerFor(recordsOf(Persona, 1)[0])).toBeDefined();
  });

  it('writes the entity declared fields only, in their declared order', () => {
    const [record] = recordsOf(Item, 1);
    const json = JSON.parse(compiledJson([Object.assign(record, { undeclared: 'dropped' })])) as Array<Record<string, unknown>>;
    expect(Object.keys(json[0])).toEqual(Object.keys(new Item()).filter((key) => key !== 'ownerUid'));
  });

  it('falls back to JSON.stringify where a value is not of its column type', () => {
    const records = recordsOf(Item, 3);
    Object.assign(records[1], { cost: NaN, name: 12, dateCreated: new Date(NaN) });
    const answer = serialize(records);
    expect(answer).toBe(JSON.stringify(records));
    expect(() => compiledJson(records)).toThrow();
    expect(JSON.parse(answer)[1]).toMatchObject({ cost: null, name: 12, dateCreated: null });
  });

  it('leaves other answers to JSON.stringify: plain objects, empty or mixed lists, a class with its own toJSON', () => {
    expect(serializerFor({ count: 3 })).toBeUndefined();
    expect(serializerFor([])).toBeUndefined();
    expect(serializerFor([...recordsOf(Item, 1), ...recordsOf(Persona, 1)])).toBeUndefined();
    expect(serializerFor([...recordsOf(Item, 1), { uid: 'x' }])).toBeUndefined();
    expect(serializerFor(recordsOf(Leaderboard, 1))).toBeUndefined();
    expect(serializerFor(null)).toBeUndefined();
  });
});
