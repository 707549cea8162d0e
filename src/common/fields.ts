import { applyDecorators } from '@nestjs/common';
import { Exclude } from 'class-transformer';
import { Allow } from 'class-validator';
import { getMetadataArgsStorage } from 'typeorm';
import type { FieldType, QueryableFields } from './list-query.js';

/**
 * What a field is beyond its column or type, declared once on the field: whether lists filter and sort
 * on it (`@Filterable()`), whether it is internal and never leaves the service (`@Secret()`), and
 * whether a body may carry it back without setting it (`@ReadOnlyField()`). The list rules, the JSON of
 * every record and the bodies' validation are derived from these marks, so a new column is
 * unfilterable until its declaration says otherwise.
 *
 * The Swagger CLI plugin reads `@ApiHideProperty()` from the source text, not from a decorator that
 * wraps it, so secret fields carry it too; hiddenFromDocs() lets the document's builder refuse a
 * document that shows one anyway.
 */

/** A class, as decorators see it (`target.constructor`). */
type Class = abstract new (...args: never[]) => unknown;

const filterable = new Map<Class, Array<{ property: string; type?: FieldType }>>();
const secret = new Map<Class, string[]>();
const hidden = new Map<Class, string[]>();

const classOf = (target: object) => target.constructor as Class;

function mark(registry: Map<Class, string[]>, target: object, property: string | symbol): void {
  registry.set(classOf(target), [...(registry.get(classOf(target)) ?? []), String(property)]);
}

/**
 * Lists filter and sort on this field (docs/CONTRACT.md section 2). Its type comes from the column
 * (uuid, text, integer, double precision, boolean, timestamptz); text columns holding one of a fixed
 * set of values say so: `@Filterable({ enum: SESSION_STATUSES })`.
 */
export function Filterable(type?: FieldType): PropertyDecorator {
  return (target, property) => {
    filterable.set(classOf(target), [...(filterable.get(classOf(target)) ?? []), { property: String(property), type }]);
  };
}

/** Internal to the service: never in an answer (RecordEntity.toJSON); with @ApiHideProperty(), never in the document. */
export function Secret(): PropertyDecorator {
  return (target, property) => {
    mark(secret, target, property);
    mark(hidden, target, property);
  };
}

/**
 * A field a client may send back with a record it read (docs/CONTRACT.md section 1) but never sets:
 * class-transformer drops its value when the body becomes its DTO, before validation, so it is
 * accepted and ignored (@Allow: the whitelist still sees the class's own empty field). Create and
 * update bodies (PartialType) share the mark. The document declares it `readOnly: true`.
 */
export const ReadOnlyField = () => applyDecorators(Allow(), Exclude({ toClassOnly: true }));

/** The fields the OpenAPI document must not show, by class name (the document's schema names). */
export function hiddenFromDocs(): Array<{ schema: string; property: string }> {
  return [...hidden].flatMap(([owner, properties]) => properties.map((property) => ({ schema: owner.name, property })));
}

/** The classes from `entity` up to its root, base classes first (their fields come first in lists). */
export function lineage(entity: Class): Class[] {
  const chain: Class[] = [];
  for (
    let current: Class | null = entity;
    current && current !== Function.prototype;
    current = Object.getPrototypeOf(current) as Class | null
  ) {
    chain.unshift(current);
  }
  return chain;
}

const COLUMN_TYPES: Record<string, FieldType> = {
  uuid: 'uuid',
  text: 'string',
  integer: 'integer',
  'double precision': 'number',
  boolean: 'boolean',
  timestamptz: 'date',
};

const queryableCache = new Map<Class, QueryableFields>();

/** The fields lists of `entity` filter and sort on, with their types, in declaration order. */
export function queryableFields(entity: Class): QueryableFields {
  const known = queryableCache.get(entity);
  if (known) return known;
  const chain = lineage(entity);
  const columns = getMetadataArgsStorage().filterColumns(chain);
  const fields: Record<string, FieldType> = {};
  for (const { property, type } of chain.flatMap((owner) => filterable.get(owner) ?? [])) {
    const columnType = columns.find((column) => column.propertyName === property)?.options.type;
    const resolved = type ?? (typeof columnType === 'string' ? COLUMN_TYPES[columnType] : undefined);
    if (!resolved) throw new Error(`${entity.name}.${property} is @Filterable() but its column type does not say how to filter it`);
    fields[property] = resolved;
  }
  queryableCache.set(entity, fields);
  return fields;
}

const secretCache = new Map<Class, ReadonlySet<string> | null>();

/** The @Secret() fields of a record's class, or null when it has none (the common case, kept cheap). */
export function secretFields(entity: Class): ReadonlySet<string> | null {
  let known = secretCache.get(entity);
  if (known === undefined) {
    const names = lineage(entity).flatMap((owner) => secret.get(owner) ?? []);
    known = names.length > 0 ? new Set(names) : null;
    secretCache.set(entity, known);
  }
  return known;
}

/** A body or answer whose shape depends on one of its fields, for the OpenAPI document (a base with a discriminator). */
export interface AlternativesSpec {
  /** The field that tells the shapes apart. */
  propertyName: string;
  /** Its values and the class of each shape (thunks: the classes may be declared further down). */
  mapping: Record<string, () => Class>;
  /** The field's description in the document. */
  description: string;
  /** What Swagger UI pre-fills. */
  example: object;
}

const alternatives = new Map<string, AlternativesSpec>();

/**
 * Documents the class as the base of several shapes told apart by a field: a request body whose class
 * validates every shape (with the rules between fields no schema can state), or the events a list
 * holds. List the shapes' classes in the controller's @ApiExtraModels().
 */
export const Alternatives =
  (spec: AlternativesSpec): ClassDecorator =>
  (target) => {
    alternatives.set(target.name, spec);
  };

/** The documented classes with alternative shapes, by class name. */
export function declaredAlternatives(): ReadonlyMap<string, AlternativesSpec> {
  return alternatives;
}

const schemaExamples = new Map<string, object>();

/**
 * The example of a whole body, where the one Swagger UI would compose from the fields' examples is not
 * a request the service takes (a fixed `expiresAt` is in the past one day). The document's builder
 * sets it as the schema's example.
 */
export const SchemaExample =
  (example: object): ClassDecorator =>
  (target) => {
    schemaExamples.set(target.name, example);
  };

/** The bodies' own examples, by class name. */
export function declaredSchemaExamples(): ReadonlyMap<string, object> {
  return schemaExamples;
}

/**
 * The keys a map property must hold (its object schema's `required`), given in @ApiProperty() under this
 * name, since there `required` says whether the property itself is; the document's builder moves them.
 */
export const REQUIRED_KEYS = 'x-required-keys';

/** The OpenAPI description of a read-only uid a body may carry back (a session's hostUid, a ticket's sessionUid). */
export const READ_ONLY_UID = {
  type: 'string',
  format: 'uuid',
  readOnly: true,
  required: false,
  example: '4c1b3a3e-8a53-4f6e-9d1c-2b7f0e9a6d15',
} as const;
