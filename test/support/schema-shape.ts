import type { OpenAPIObject } from '@nestjs/swagger';
import { documentedEvents } from '../../scripts/generate-sdk.js';

type Schema = Record<string, unknown>;

/** Formats as the REST answers write them: dates in ISO 8601 UTC with milliseconds, uuids in lower case. */
const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
};

/**
 * Where a JSON value strays from a schema of the document: a field the schema does not have, a required
 * one missing, a type, enum or format it does not allow. Stricter than the contract check
 * (test/support/contract.ts), which lets extra fields through as OpenAPI does: JSON that SQL builds
 * (events, snapshots) must have exactly its class's fields. A construct it does not know fails the
 * test rather than passing unchecked.
 */
export function shapeProblems(document: OpenAPIObject, value: unknown, schema: Schema, path = '$'): string[] {
  if (typeof schema.$ref === 'string') return shapeProblems(document, value, resolve(document, schema.$ref), path);
  if (Array.isArray(schema.allOf)) {
    if (schema.allOf.length !== 1) throw new Error(`${path}: an allOf of ${schema.allOf.length} schemas is not checked here`);
    return shapeProblems(document, value, schema.allOf[0] as Schema, path);
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    const each = alternatives.map((alternative) => shapeProblems(document, value, alternative as Schema, path));
    return each.some((problems) => problems.length === 0) ? [] : [`${path}: matches none of its alternatives (${each.flat().join('; ')})`];
  }
  const allowed = schema.type === undefined ? undefined : ([schema.type].flat() as string[]);
  if (!allowed) throw new Error(`${path}: a schema without a type is not checked here (${JSON.stringify(schema)})`);
  const actual = jsonType(value);
  if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) {
    return [`${path}: ${actual}, the schema says ${allowed.join(' or ')}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    return [`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format && typeof value === 'string' && !format.test(value))
    return [`${path}: ${JSON.stringify(value)} is not a ${String(schema.format)}`];
  if (actual === 'array') {
    return (value as unknown[]).flatMap((item, index) => shapeProblems(document, item, schema.items as Schema, `${path}[${index}]`));
  }
  if (actual === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const fields = value as Record<string, unknown>;
    return [
      ...Object.keys(fields)
        .filter((key) => !(key in properties))
        .map((key) => `${path}.${key}: not a field of the schema`),
      ...((schema.required ?? []) as string[]).filter((key) => !(key in fields)).map((key) => `${path}.${key}: required, missing`),
      ...Object.entries(fields)
        .filter(([key]) => key in properties)
        .flatMap(([key, field]) => shapeProblems(document, field, properties[key], `${path}.${key}`)),
    ];
  }
  return [];
}

/** The schema of an event's `data`, found as the SDK's generator finds the events. */
export function eventDataSchema(document: OpenAPIObject, type: string): Schema {
  const event = documentedEvents(document).find((documented) => documented.type === type);
  if (!event) throw new Error(`no event of type ${type} in the document`);
  return event.data;
}

function resolve(document: OpenAPIObject, reference: string): Schema {
  const name = /^#\/components\/schemas\/(.+)$/.exec(reference)?.[1];
  const schema = name === undefined ? undefined : document.components?.schemas?.[name];
  if (!schema) throw new Error(`${reference}: not a schema of the document`);
  return schema as Schema;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
