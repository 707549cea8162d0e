import { badRequest } from './errors.js';
import { UUID } from './validators.js';

/**
 * The list rules of docs/CONTRACT.md section 2, as a pure parser: raw query parameters in, a checked
 * ListQuery out. Turning it into SQL is record.service.ts's job; keeping the two apart lets the rules
 * be unit-tested without a database.
 */

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'uuid' | 'date' | { enum: readonly string[] };

/** The scalar fields of a resource that may be filtered and sorted on, with their types. */
export type QueryableFields = Readonly<Record<string, FieldType>>;

export type SortDirection = 'ASC' | 'DESC';
export type FilterOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'range' | 'like';
export type FilterValue = string | number | boolean;

export interface Filter {
  field: string;
  operator: FilterOperator;
  /** One value, except `in` (one or more) and `range` (two: low, high). */
  values: FilterValue[];
}

export interface ListQuery {
  limit: number;
  skip: number;
  /** Always ends with `uid`, so that pages never overlap or skip a record. */
  order: Array<{ field: string; direction: SortDirection }>;
  filters: Filter[];
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
const MAX_IN_VALUES = 100;
export const MAX_VALUE_LENGTH = 1000;
/** Characters of one list parameter (a filter or `sort`): in() of a hundred uuids, dates or numbers, spaced, fits. */
export const MAX_PARAMETER_LENGTH = 4096;

type RawQuery = Record<string, string | string[] | undefined>;

/** Parameters that are not filters, on top of the list parameters, for routes that take others. */
export function parseListQuery(raw: RawQuery, fields: QueryableFields, reserved: readonly string[] = []): ListQuery {
  const query: ListQuery = {
    limit: parseCount(single(raw, 'limit'), 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
    skip: parseCount(single(raw, 'skip'), 'skip', 0, 0, Number.MAX_SAFE_INTEGER),
    order: [],
    filters: [],
  };
  // Pairs, not an object: `sort[__proto__]` would set a prototype instead of adding a key.
  const bracketSort: Array<[string, string]> = [];
  for (const key of Object.keys(raw)) {
    if (key === 'limit' || key === 'skip' || key === 'sort' || reserved.includes(key)) continue;
    const bracket = /^sort\[(.*)\]$/.exec(key);
    if (bracket) {
      bracketSort.push([bracket[1], single(raw, key) ?? '']);
      continue;
    }
    query.filters.push(parseFilter(key, single(raw, key) ?? '', fields));
  }

  const sort = single(raw, 'sort');
  if (sort !== undefined && bracketSort.length > 0) {
    throw badRequest('sort is given twice: use either sort=... or sort[field]=...', [{ field: 'sort', message: 'given twice' }]);
  }
  const requested = sort !== undefined ? parseSortParameter(sort) : bracketSort;
  query.order = buildOrder(requested, fields);
  return query;
}

function single(raw: RawQuery, key: string): string | undefined {
  const value = raw[key];
  if (Array.isArray(value)) {
    throw badRequest(`${key} is given more than once`, [{ field: key, message: 'given more than once' }]);
  }
  if (value !== undefined && typeof value !== 'string') throw badRequest(`${key} must be text`, [{ field: key, message: 'must be text' }]);
  if (value !== undefined && value.length > MAX_PARAMETER_LENGTH) {
    throw badRequest(`${key} is longer than ${MAX_PARAMETER_LENGTH} characters`, [
      { field: key, message: `longer than ${MAX_PARAMETER_LENGTH} characters` },
    ]);
  }
  return value;
}

function parseCount(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim())) {
    throw badRequest(`${name} must be an integer`, [{ field: name, message: 'must be an integer' }]);
  }
  const parsed = Number(value);
  if (parsed < min) {
    throw badRequest(`${name} must not be less than ${min}`, [{ field: name, message: `must not be less than ${min}` }]);
  }
  if (parsed > max) {
    throw badRequest(`${name} must not exceed ${max}`, [{ field: name, message: `must not exceed ${max}` }]);
  }
  return parsed;
}

/** `sort={"name":"ASC"}` (JSON object) or `sort=name` (one field, ascending). */
function parseSortParameter(sort: string): Array<[string, string]> {
  const text = sort.trim();
  if (!text.startsWith('{')) return [[text, 'ASC']];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('sort must be a JSON object such as {"name":"ASC"} or a field name', [{ field: 'sort', message: 'not valid JSON' }]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('sort must be a JSON object such as {"name":"ASC"}', [{ field: 'sort', message: 'not an object' }]);
  }
  return Object.entries(parsed).map(([field, direction]) => [field, typeof direction === 'string' ? direction : '']);
}

function buildOrder(requested: Array<[string, string]>, fields: QueryableFields): ListQuery['order'] {
  if (requested.length === 0) {
    return [
      { field: 'dateCreated', direction: 'ASC' },
      { field: 'uid', direction: 'ASC' },
    ];
  }
  const order: ListQuery['order'] = [];
  for (const [field, rawDirection] of requested) {
    if (!Object.hasOwn(fields, field)) {
      throw badRequest(`cannot sort on "${field}": sortable fields are ${Object.keys(fields).join(', ')}`, [
        { field: `sort.${field}`, message: 'not a sortable field' },
      ]);
    }
    const direction = rawDirection.toUpperCase();
    if (direction !== 'ASC' && direction !== 'DESC') {
      throw badRequest(`sort order of "${field}" must be ASC or DESC`, [{ field: `sort.${field}`, message: 'must be ASC or DESC' }]);
    }
    order.push({ field, direction });
  }
  if (!order.some((entry) => entry.field === 'uid')) order.push({ field: 'uid', direction: 'ASC' });
  return order;
}

const OPERATOR_SYNTAX = /^(ne|gte|gt|lte|lt|in|range|like)\(([\s\S]*)\)$/;

function parseFilter(field: string, raw: string, fields: QueryableFields): Filter {
  if (!Object.hasOwn(fields, field)) {
    throw badRequest(`unknown query parameter "${field}": filterable fields are ${Object.keys(fields).join(', ')}`, [
      { field, message: 'not a filterable field' },
    ]);
  }
  const type = fields[field];
  const match = OPERATOR_SYNTAX.exec(raw);
  const operator = (match?.[1] ?? 'eq') as FilterOperator;
  const argument = match ? match[2] : raw;
  const fail = (message: string): never => {
    throw badRequest(`filter ${field}: ${message}`, [{ field, message }]);
  };

  if (operator === 'like') {
    if (type !== 'string') fail('like() applies to text fields only');
    if (argument.length > MAX_VALUE_LENGTH) fail(`value longer than ${MAX_VALUE_LENGTH} characters`);
    return { field, operator, values: [argument] };
  }
  if (type === 'boolean' && !['eq', 'ne', 'in'].includes(operator)) fail(`${operator}() does not apply to true/false`);

  const parts = operator === 'in' || operator === 'range' ? argument.split(',') : [argument];
  if (operator === 'range' && parts.length !== 2) fail('range() takes two values: range(low,high)');
  if (operator === 'in' && parts.length > MAX_IN_VALUES) fail(`in() takes at most ${MAX_IN_VALUES} values`);
  const values = parts.map((part) => {
    const value = parseValue(part.trim(), type);
    if (value === undefined) fail(`"${part}" is not ${describe(type)}`);
    return value as FilterValue;
  });
  return { field, operator, values };
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const INT4_MAX = 2_147_483_647;

function parseValue(text: string, type: FieldType): FilterValue | undefined {
  if (text.length > MAX_VALUE_LENGTH) return undefined;
  if (typeof type === 'object') return type.enum.includes(text) ? text : undefined;
  switch (type) {
    case 'string':
      return text;
    case 'uuid':
      return UUID.test(text) ? text.toLowerCase() : undefined;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'integer':
      return /^-?\d+$/.test(text) && Math.abs(Number(text)) <= INT4_MAX ? Number(text) : undefined;
    case 'number':
      return NUMBER.test(text) && Number.isFinite(Number(text)) ? Number(text) : undefined;
    case 'date':
      return ISO_DATE.test(text) && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : undefined;
  }
}

function describe(type: FieldType): string {
  if (typeof type === 'object') return `one of ${type.enum.join(', ')}`;
  return {
    string: 'text',
    uuid: 'a UUID',
    boolean: 'true or false',
    integer: 'an integer',
    number: 'a number',
    date: 'an ISO 8601 date',
  }[type];
}

/**
 * The filter syntax of a field as a JSON Schema pattern, for the OpenAPI document: what the parser above
 * accepts, so that a client generated from the document sends filters the service takes. Text fields
 * take any text (equality, or like()), so they have none. Where the parser checks more than a pattern
 * can (a calendar date that exists, an integer above 999,999,999 that still fits PostgreSQL's integer),
 * the pattern is the stricter of the two.
 */
export function filterPattern(type: FieldType): string | undefined {
  const value = VALUE_PATTERNS[typeof type === 'object' ? 'enum' : type];
  if (value === undefined) return undefined;
  const one = ` *(?:${typeof value === 'function' ? value(type as { enum: readonly string[] }) : value}) *`;
  const list = `in\\(${one}(?:,${one}){0,${MAX_IN_VALUES - 1}}\\)`;
  if (type === 'boolean') return `^(?:${one}|ne\\(${one}\\)|${list})$`;
  return `^(?:${one}|(?:ne|gt|gte|lt|lte)\\(${one}\\)|${list}|range\\(${one},${one}\\))$`;
}

const VALUE_PATTERNS: Record<Exclude<FieldType, object> | 'enum', string | ((type: { enum: readonly string[] }) => string) | undefined> = {
  string: undefined,
  uuid: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
  integer: '-?[0-9]{1,9}',
  number: '-?[0-9]{1,15}(?:\\.[0-9]{1,15})?(?:[eE][+-]?[0-9]{1,2})?',
  boolean: 'true|false',
  date: '[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])(?:[T ](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,6})?)?(?:Z|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])?)?',
  enum: (type) => type.enum.join('|'),
};

/** The `sort` parameter as a JSON Schema pattern: a sortable field's name, or a JSON object of them. */
export function sortPattern(fields: readonly string[]): string {
  const field = fields.join('|');
  const direction = '[Aa][Ss][Cc]|[Dd][Ee][Ss][Cc]';
  const entry = `\\s*"(?:${field})"\\s*:\\s*"(?:${direction})"\\s*`;
  return `^\\s*(?:(?:${field})|\\{(?:${entry}(?:,${entry})*)?\\})\\s*$`;
}
