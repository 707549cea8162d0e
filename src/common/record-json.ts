import fastJsonStringify, { type Schema } from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import { getMetadataArgsStorage } from 'typeorm';
import { lineage, secretFields } from './fields.js';
import { RecordEntity } from './record.entity.js';

/**
 * The JSON of records (an answer that is one record, or a list of records of one class), written by a
 * serializer Fastify's own compiler (fast-json-stringify) builds once per entity, instead of
 * JSON.stringify walking every record: the list pages spent most of their own time there
 * (docs/PERFORMANCE.md). The bytes are JSON.stringify's, from what the entity declares once: its
 * fields in declaration order (a record's own keys, as `new Entity()` defines them), without the
 * @Secret() ones, each typed by its column. A value its column type does not describe (NaN, a
 * transformer's output) makes the compiled serializer throw, and that answer is written by
 * JSON.stringify instead; a class with its own toJSON keeps JSON.stringify altogether.
 */
export function serializeRecords(fastify: FastifyInstance): void {
  fastify.addHook('preSerialization', (_request, reply, payload, done) => {
    const serializer = serializerFor(payload);
    if (serializer) void reply.serializer(serializer);
    done(null, payload);
  });
}

type Serializer = (payload: unknown) => string;

/** fast-json-stringify's typings take one `type` a schema; a nullable field has two. */
type JsonSchema = Record<string, unknown>;

interface RecordSerializers {
  one: Serializer;
  many: Serializer;
}

type RecordClass = new () => RecordEntity;

const compiled = new Map<RecordClass, RecordSerializers | null>();

/** The compiled serializer for `payload`, when it is a record or a non-empty list of records of one class. */
export function serializerFor(payload: unknown): Serializer | undefined {
  if (Array.isArray(payload)) {
    const first: unknown = payload[0];
    if (!(first instanceof RecordEntity)) return undefined;
    const entity = first.constructor;
    for (const record of payload) if ((record as object | null)?.constructor !== entity) return undefined;
    return serializersOf(entity as RecordClass)?.many;
  }
  return payload instanceof RecordEntity ? serializersOf(payload.constructor as RecordClass)?.one : undefined;
}

function serializersOf(entity: RecordClass): RecordSerializers | null {
  let known = compiled.get(entity);
  if (known === undefined) {
    known = (entity.prototype as RecordEntity).toJSON === RecordEntity.prototype.toJSON ? compile(recordSchema(entity)) : null;
    compiled.set(entity, known);
  }
  return known;
}

function compile(record: JsonSchema): RecordSerializers {
  const withFallback = (serialize: Serializer): Serializer => {
    return (payload) => {
      try {
        return serialize(payload);
      } catch {
        return JSON.stringify(payload);
      }
    };
  };
  return {
    one: withFallback(fastJsonStringify(record as unknown as Schema)),
    many: withFallback(fastJsonStringify({ type: 'array', items: record } as unknown as Schema)),
  };
}

/** The JSON types of the column types whose values pg gives as one JS type; any other column is written by JSON.stringify. */
const JSON_TYPES: Record<string, JsonSchema> = {
  uuid: { type: ['string', 'null'] },
  text: { type: ['string', 'null'] },
  varchar: { type: ['string', 'null'] },
  integer: { type: ['number', 'null'] },
  smallint: { type: ['number', 'null'] },
  'double precision': { type: ['number', 'null'] },
  boolean: { type: ['boolean', 'null'] },
  timestamptz: { type: ['string', 'null'], format: 'date-time' },
};

/** The schema of the JSON clients see of an entity's records (RecordEntity.toJSON). */
export function recordSchema(entity: RecordClass): JsonSchema {
  const hidden = secretFields(entity);
  const columns = getMetadataArgsStorage().filterColumns(lineage(entity));
  const properties: Record<string, JsonSchema> = {};
  for (const property of Object.keys(new entity())) {
    if (hidden?.has(property)) continue;
    const column = columns.find((entry) => entry.propertyName === property);
    const type = column?.options.type;
    const plain = column && !column.options.transformer && !column.options.array && typeof type === 'string';
    properties[property] = (plain && JSON_TYPES[type]) || {};
  }
  return { type: 'object', properties };
}
