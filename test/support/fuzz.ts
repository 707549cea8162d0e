import fc from 'fast-check';

/**
 * Hostile requests generated from the OpenAPI document (test/fuzz.e2e-spec.ts). For every operation the
 * document lists, the path, query, headers and body are built from what the document says about
 * them, then spoiled: wrong types, missing and extra fields, huge and odd unicode strings, deep
 * nesting, negative, fractional and out-of-range numbers, NaN-like strings, malformed uuids, SQL and
 * JSON injection in `sort` and the filters, oversized and malformed bodies, wrong content types.
 */

// ---------------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------------

export interface Schema {
  $ref?: string;
  /** OpenAPI 3.1: a type, or several (`['string', 'null']`); resolve() leaves one, and `nullable`. */
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  example?: unknown;
  description?: string;
  /** A base whose shapes are allOf it (src/openapi/for-generators.ts): a value is one of the shapes. */
  discriminator?: { propertyName: string; mapping: Record<string, string> };
}

interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
  description?: string;
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
      }
    >
  >;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

export interface Operation {
  /** `METHOD /path/{param}` */
  route: string;
  method: string;
  path: string;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  headerParameters: Parameter[];
  /** The JSON body's schema, when the operation takes one. */
  body?: Schema;
  /** Fields a list or count route may sort and filter on (from its `sort` parameter's description). */
  listFields?: string[];
  /** The schema of the records a list or count route is about (its list's 200 answer), for filter values. */
  listItem?: Schema;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const listItem = (path: string): Schema | undefined => {
    const list = document.paths[path.replace(/\/count$/, '')]?.get?.responses['200']?.content?.['application/json']?.schema;
    return list?.type === 'array' ? list.items : undefined;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      // Parameters many operations share are $refs to components.parameters.
      const parameters = (operation.parameters ?? []).map((parameter) =>
        parameter.$ref ? document.components.parameters![parameter.$ref.split('/').pop()!] : parameter,
      );
      const sort = parameters.find((parameter) => parameter.in === 'query' && parameter.name === 'sort');
      return {
        route: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParameters: parameters.filter((parameter) => parameter.in === 'path'),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        headerParameters: parameters.filter((parameter) => parameter.in === 'header'),
        body: operation.requestBody?.content['application/json']?.schema,
        listFields: sort?.description ? /Sortable: ([\w, ]+)\./.exec(sort.description)?.[1].split(', ') : undefined,
        listItem: sort ? listItem(path) : undefined,
      };
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------------

/** Strings that have broken parsers, SQL, JSON and unicode handling somewhere before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t',
  'null',
  'undefined',
  'NaN',
  '-NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '-0',
  '0',
  '1.5',
  '.5',
  '1e309',
  '-1e309',
  '1e-400',
  '0x1F',
  '0b11',
  '1_000',
  '١٢',
  '１２',
  '9'.repeat(40),
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '1,2',
  ' 7 ',
  "' OR '1'='1",
  "'; DROP TABLE items; --",
  '" OR 1=1 --',
  '1; SELECT pg_sleep(10)',
  'name"; DROP TABLE users; --',
  '$1',
  ':uid',
  '?',
  '%',
  '_',
  '\\',
  '\\%',
  '%_%',
  '*',
  "E'\\x00'",
  '/*',
  '*/',
  '--',
  '{"$gt":""}',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"isAdmin":true}}}',
  '[]',
  '{}',
  '[{}]',
  'true',
  'false',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffx',
  '\udc00\ud800',
  '\u202e',
  '\ufeff',
  '\u200b',
  '😀',
  '𝕏',
  'ǅ',
  'İ',
  'ß',
  '\u0085',
  '\r\n',
  '\x1b[31m',
  '../../etc/passwd',
  '..',
  '%2e%2e%2f',
  '%00',
  '%zz',
  '%',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '#{7*7}',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-4000-8000-00000000000g',
  '{00000000-0000-4000-8000-000000000000}',
  '00000000000040008000000000000000',
  'gt(1)',
  'gt()',
  'in()',
  'in(,)',
  'range(1)',
  'range(,)',
  'range(2,1)',
  'like()',
  'like(%)',
  'like(\\)',
  'ne(null)',
  'gt(1) OR 1=1',
  `in(${'1,'.repeat(150)}1)`,
  'in(a,b',
  'lte(9999-12-31)',
  'gte(-1e309)',
  'ASC',
  'DESC',
  'desc',
  'asc; drop table x',
  'ASC NULLS FIRST',
  'RANDOM()',
  '2024-02-30',
  '0000-01-01',
  '9999-12-31T23:59:59.999999Z',
  '2024-01-01T25:00:00Z',
  '1970-01-01T00:00:00+99:99',
  '-001000-01-01',
  'en',
  'pt-BR',
  'x-klingon',
  'zh-Hant-TW-u-nu-hanidec',
  '*;q=0.5',
  'en;q=NaN',
  'en;q=-1',
  ',,,;;;',
];

const nastyString = fc.constantFrom(...NASTY_STRINGS);

/**
 * Single characters that break storage, escaping or display when they sit inside an otherwise fine
 * value. NUL comes thrice: PostgreSQL stores it in neither text nor jsonb.
 */
const SPIKES = [
  '\u0000',
  '\u0000',
  '\u0000',
  '\ud800',
  '\udfff',
  '\u202e',
  '\u2028',
  '\ufeff',
  '\u0085',
  '\x7f',
  '\r\n',
  "'",
  '"',
  '\\',
  '%',
  '_',
  '😀',
  '\u0301',
];

/** `base` with a spike character put in somewhere: a value that passes a length check but not the storage. */
export function spiked(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(base, fc.constantFrom(...SPIKES), fc.nat()).map(([text, spike, at]) => {
    const index = text.length === 0 ? 0 : at % (text.length + 1);
    return text.slice(0, index) + spike + text.slice(index);
  });
}

/** Any string a client could send: nasty literals, random unicode, huge ones, number-like and uuid-like ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: nastyString },
  { weight: 3, arbitrary: spiked(fc.string({ unit: 'grapheme-ascii', maxLength: 12 })) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(nastyString, nastyString).map(([a, b]) => a + b) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('x', 'é', '😀', '\u0000', "'", '9'), fc.integer({ min: 200, max: 5_000 }))
      .map(([unit, count]) => unit.repeat(count)),
  },
  // Past every length limit of the API (the longest, a text asset's text, is 100 000 characters).
  { weight: 1, arbitrary: fc.constant('x'.repeat(100_001)) },
  { weight: 1, arbitrary: fc.oneof(fc.double(), fc.integer(), fc.bigInt()).map(String) },
  {
    weight: 1,
    arbitrary: fc
      .uuid()
      .chain((uuid) => fc.constantFrom(uuid, uuid.toUpperCase(), uuid.slice(1), `${uuid}0`, uuid.replace(/-/g, ''), ` ${uuid}`)),
  },
);

/** A JSON value spliced into the JSON text as is: what JSON.stringify cannot write, or would take long to. */
class RawJson {
  constructor(readonly text: string) {}
}

const depth = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 20, max: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 50_000 }) },
);

const rawJson: fc.Arbitrary<RawJson> = fc.oneof(
  depth.map((n) => new RawJson('['.repeat(n) + ']'.repeat(n))),
  depth.map((n) => new RawJson('{"a":'.repeat(n) + '1' + '}'.repeat(n))),
  fc.constantFrom(
    ...[
      '1e400',
      '-1e400',
      '1E+2',
      '123456789012345678901234567890',
      '-0',
      '0.0000000000000000000001',
      '1.0',
      '-9007199254740993',
      '"\\u0000"',
      '"a\\u0000b"',
      '"\\ud800"',
      '"\\udc00\\ud800"',
      '"\\uDFFF"',
      '"\\u202e"',
      '{"__proto__":{"admin":true}}',
      '{"a":1,"a":2}',
      '{"":""}',
      '[null]',
      '[[],[[]]]',
    ].map((text) => new RawJson(text)),
  ),
);

/** Any JSON value, in the wrong place: wrong types, odd numbers, hostile strings, deep nesting. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      true,
      false,
      0,
      -1,
      -0.5,
      1.5,
      1e308,
      -1e308,
      2147483648,
      -2147483649,
      // Past Number.MAX_SAFE_INTEGER on purpose: a client's JSON may hold it.
      // eslint-disable-next-line no-loss-of-precision
      9007199254740993,
      [],
      {},
      [null],
      [[]],
      { '': '' },
    ),
  },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: rawJson },
);

/** JSON.stringify, except that RawJson values are written as they are. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, entry]) => `${JSON.stringify(key)}:${toJsonText(entry)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// ---------------------------------------------------------------------------------------------------
// Values from schemas
// ---------------------------------------------------------------------------------------------------

const FIELD_NAMES = fc.oneof(
  nastyString,
  fc.constantFrom('uid', 'version', 'ownerUid', 'userUid', 'passwordHash', 'isAdmin', 'roles', 'createdByUid'),
);

type Path = Array<string | number>;

/** Values for a schema: valid ones (examples first), valid ones with one thing wrong, and chaos. */
export class SchemaValues {
  constructor(
    private readonly document: OpenApiDocument,
    /** Real record ids, so that uuid fields sometimes name something that exists. */
    private readonly knownUids: () => string[],
  ) {}

  resolve(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; current.$ref && hops < 10; hops++) {
      const target = this.document.components.schemas[current.$ref.replace('#/components/schemas/', '')];
      const { properties, ...rest } = withoutRef(current);
      // A $ref that names the discriminator's value beside it (resolve() below) keeps the target's other fields.
      current = properties ? { ...target, ...rest, allOf: [...(target.allOf ?? [target]), { properties }] } : { ...target, ...rest };
    }
    // A discriminated base is one of its shapes; a shape is its base's fields and its own, the field
    // that tells them apart holding the shape's value.
    if (current.discriminator) {
      const { propertyName, mapping } = current.discriminator;
      return { oneOf: Object.entries(mapping).map(([value, $ref]) => ({ $ref, properties: { [propertyName]: { enum: [value] } } })) };
    }
    if (current.allOf?.length) {
      const parts = current.allOf.map((part) => {
        const { discriminator: _discriminator, ...shape } = part.$ref
          ? this.document.components.schemas[part.$ref.replace('#/components/schemas/', '')]
          : part;
        return this.resolve(shape);
      });
      const own = withoutAllOf(current);
      current = {
        ...Object.assign({}, ...parts),
        ...own,
        properties: Object.assign({}, ...parts.map((part) => part.properties), own.properties),
        required: [...new Set([...parts, own].flatMap((part) => part.required ?? []))],
      };
    }
    if (Array.isArray(current.type)) {
      const types = current.type.filter((type) => type !== 'null');
      current = { ...current, type: types[0], nullable: current.nullable || types.length < current.type.length };
    }
    // OpenAPI 3.1 says "or null" with a type list, or with oneOf (or anyOf) [schema, { type: 'null' }].
    const options = current.oneOf ?? current.anyOf;
    const orNull = options?.length === 2 ? options.find((option) => option.type !== 'null') : undefined;
    if (orNull && options!.some((option) => option.type === 'null')) {
      const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = current;
      current = { ...this.resolve(orNull), ...rest, nullable: true };
    }
    return current;
  }

  /** A value the schema allows: these reach past validation, into the services and the database. */
  valid(raw: Schema): fc.Arbitrary<unknown> {
    const schema = this.resolve(raw);
    const generated = this.validByType(schema);
    const options: Array<fc.WeightedArbitrary<unknown>> = [{ weight: 3, arbitrary: generated }];
    if (schema.example !== undefined)
      options.push({ weight: 2, arbitrary: fc.constant(schema.example).map((value) => structuredClone(value)) });
    if (schema.nullable) options.push({ weight: 1, arbitrary: fc.constant(null) });
    return fc.oneof(...options);
  }

  /** A valid value with exactly one thing wrong: a spiked string, a hostile value, a field missing, added or wrapped in a list. */
  withOneFault(schema: Schema): fc.Arbitrary<unknown> {
    return fc
      .tuple(
        this.valid(schema),
        fc.constantFrom('spike', 'spike', 'spike', 'replace', 'replace', 'drop', 'extra', 'number', 'wrap', 'wrap'),
        fc.nat(),
        hostileJson,
        FIELD_NAMES,
        fc.constantFrom(...SPIKES),
        fc.nat(),
      )
      .map(([value, fault, pick, hostile, name, spike, at]) => withFault(value, fault, pick, hostile, name, spike, at));
  }

  /** Anything goes, at every level: wrong types, extra fields, hostile strings. */
  chaos(raw: Schema, level = 0): fc.Arbitrary<unknown> {
    const schema = this.resolve(raw);
    return fc.oneof({ weight: 4, arbitrary: this.chaosByType(schema, level) }, { weight: level === 0 ? 0 : 1, arbitrary: hostileJson });
  }

  private validByType(schema: Schema): fc.Arbitrary<unknown> {
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.oneOf) return fc.oneof(...schema.oneOf.map((option) => this.valid(option)));
    // An open value (a stat's value: a string, a number or a boolean, said in words).
    if (schema.type === undefined && !schema.properties && !schema.additionalProperties)
      return fc.oneof(this.validString({ ...schema, type: 'string' }), fc.integer(), fc.boolean());
    switch (schema.type) {
      case 'string':
        return this.validString(schema);
      case 'integer':
      case 'number':
        return fc.integer({
          min: Math.max(schema.minimum ?? -1_000_000, -2_147_483_648),
          max: Math.min(schema.maximum ?? 1_000_000, 2_147_483_647),
        });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(this.valid(schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
      default: {
        const required = new Set(schema.required ?? []);
        const entries = Object.entries(schema.properties ?? {}).map(([name, property]) =>
          required.has(name)
            ? this.valid(property).map((value): [string, unknown] | undefined => [name, value])
            : fc.option(
                this.valid(property).map((value): [string, unknown] => [name, value]),
                { nil: undefined },
              ),
        );
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          const values = schema.additionalProperties;
          entries.push(this.valid(values).map((value): [string, unknown] => ['default', value]));
          entries.push(fc.option(fc.tuple(fc.constantFrom('en', 'pt-BR', 'thumbnail'), this.valid(values)), { nil: undefined }));
        }
        return fc.tuple(...entries).map(toObject);
      }
    }
  }

  private validString(schema: Schema): fc.Arbitrary<string> {
    if (schema.format === 'uuid')
      return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...this.knownUidsOrOne()) }, { weight: 1, arbitrary: fc.uuid() });
    if (schema.format === 'uri') return fc.constantFrom('https://cdn.example.com/a.png', 'http://localhost:8080/x?y=1');
    if (schema.format === 'date-time')
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
    if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
    const maxLength = Math.max(1, Math.min(schema.maxLength ?? 30, 30));
    return fc.string({ unit: 'grapheme-composite', minLength: Math.min(schema.minLength ?? 1, maxLength), maxLength });
  }

  private chaosByType(schema: Schema, level: number): fc.Arbitrary<unknown> {
    if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), hostileString);
    if (schema.oneOf) return fc.oneof(...schema.oneOf.map((option) => this.chaos(option, level + 1)));
    switch (schema.type) {
      case 'string':
        return fc.oneof(this.validString(schema), spiked(this.validString(schema)), hostileString);
      case 'integer':
      case 'number':
        return fc.oneof(this.validByType(schema), fc.constantFrom((schema.minimum ?? 0) - 1, (schema.maximum ?? 0) + 1, 0.5, -1, 1e308));
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(this.chaos(schema.items ?? {}, level + 1), { maxLength: 4 });
      default: {
        const required = new Set(schema.required ?? []);
        const entries: Array<fc.Arbitrary<[string, unknown] | undefined>> = Object.entries(schema.properties ?? {}).map(
          ([name, property]) =>
            fc.option(
              this.chaos(property, level + 1).map((value): [string, unknown] => [name, value]),
              { nil: undefined, freq: required.has(name) ? 9 : 2 },
            ),
        );
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          entries.push(fc.tuple(fc.oneof(fc.constant('default'), FIELD_NAMES), this.chaos(schema.additionalProperties, level + 1)));
        }
        entries.push(fc.option(fc.tuple(FIELD_NAMES, hostileJson), { nil: undefined, freq: 3 }));
        return fc.tuple(...entries).map(toObject);
      }
    }
  }

  private knownUidsOrOne(): string[] {
    const uids = this.knownUids();
    return uids.length > 0 ? uids : ['00000000-0000-4000-8000-000000000000'];
  }
}

/** Own properties even for names like __proto__, as JSON.parse would make them. */
function toObject(pairs: Array<[string, unknown] | undefined>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs)
    if (pair) Object.defineProperty(result, pair[0], { value: pair[1], enumerable: true, writable: true, configurable: true });
  return result;
}

/** Every place in a value (not the value itself), as paths. */
function placesIn(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return [];
  return Object.keys(value).flatMap((key) => {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    return [path, ...placesIn((value as Record<string, unknown>)[key], path)];
  });
}

function at(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

function withFault(value: unknown, fault: string, pick: number, hostile: unknown, name: string, spike: string, position: number): unknown {
  const copy = structuredClone(value);
  const places = placesIn(copy);
  const choose = (candidates: Path[]) => (candidates.length > 0 ? candidates[pick % candidates.length] : undefined);
  const set = (path: Path, next: unknown) => {
    const parent = at(copy, path.slice(0, -1)) as Record<string | number, unknown>;
    Object.defineProperty(parent, path[path.length - 1], { value: next, enumerable: true, writable: true, configurable: true });
  };
  switch (fault) {
    case 'spike': {
      const path = choose(places.filter((place) => typeof at(copy, place) === 'string'));
      if (!path) break;
      const text = at(copy, path) as string;
      const index = position % (text.length + 1);
      set(path, text.slice(0, index) + spike + text.slice(index));
      return copy;
    }
    case 'number': {
      const path = choose(places.filter((place) => typeof at(copy, place) === 'number'));
      if (!path) break;
      // eslint-disable-next-line no-loss-of-precision -- past MAX_SAFE_INTEGER on purpose, as above
      set(path, [-1, 0.5, -0.5, 1e308, -1e308, 2147483648, 9007199254740993, 0][position % 8]);
      return copy;
    }
    case 'drop': {
      const path = choose(places.filter((place) => typeof place[place.length - 1] === 'string'));
      if (!path) break;
      delete (at(copy, path.slice(0, -1)) as Record<string, unknown>)[path[path.length - 1] as string];
      return copy;
    }
    case 'wrap': {
      // A list where a record was expected: [record] in its place.
      const path = choose(
        places.filter((place) => {
          const node = at(copy, place);
          return node !== null && typeof node === 'object' && !Array.isArray(node);
        }),
      );
      if (!path) return [copy];
      set(path, [at(copy, path)]);
      return copy;
    }
    case 'extra': {
      const objects = [[], ...places].filter((place) => {
        const node = at(copy, place);
        return node !== null && typeof node === 'object' && !Array.isArray(node);
      });
      const path = choose(objects);
      if (!path) break;
      Object.defineProperty(at(copy, path) as object, name, { value: hostile, enumerable: true, writable: true, configurable: true });
      return copy;
    }
    default:
      break;
  }
  const path = choose(places);
  if (!path) return hostile;
  set(path, hostile);
  return copy;
}

function withoutRef({ $ref: _ref, ...rest }: Schema): Schema {
  return rest;
}

function withoutAllOf({ allOf: _allOf, ...rest }: Schema): Schema {
  return rest;
}

// ---------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export interface FuzzTargets {
  /** A real value for a path parameter of the operation (a record's uid, a skill id), if there is one. */
  pathValue(operation: Operation, name: string): string | undefined;
  /** Authorization header values: ours of several users, none, garbage. */
  authorizations: string[];
  values: SchemaValues;
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/json-patch+json',
  'application/octet-stream',
  '*/*',
  'application/json, text/plain',
  ';',
];

/** Header values Node's HTTP parser would accept (so that the request reaches the service). */
const headerValue = hostileString.map((value) => value.replace(/[^\t\x20-\x7e]/g, '').slice(0, 8_000));

/**
 * Percent-encoding as encodeURIComponent does it, except that a lone surrogate becomes the bytes a
 * sloppy client would send (its WTF-8 form, which is not valid UTF-8) instead of an exception.
 */
export function percentEncode(text: string): string {
  if (!/[\ud800-\udfff]/.test(text)) return encodeURIComponent(text);
  let encoded = '';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const pairs = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    if (pairs) {
      encoded += encodeURIComponent(text.slice(index, index + 2));
      index += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      encoded += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      encoded += encodeURIComponent(text[index]);
    }
  }
  return encoded;
}

/** An `a=b&c=d` query string, encoded as a client would, or now and then sent raw (`%zz`, `&`, `=` as they are). */
function queryText(pairs: Array<[string, string]>, raw: boolean): string {
  if (pairs.length === 0) return '';
  // eslint-disable-next-line no-control-regex -- control characters are what a raw query must encode
  const encode = raw ? (text: string) => text.replace(/[#\s\x00-\x1f\x7f]|[^\x00-\x7f]+/g, percentEncode) : percentEncode;
  return `?${pairs.map(([key, value]) => `${encode(key)}=${encode(value)}`).join('&')}`;
}

/** A filter value the field's type allows (then wrapped in an operator, and maybe spiked). */
function typedFilterValue(operation: Operation, values: SchemaValues): fc.Arbitrary<[string, string]> {
  const properties = operation.listItem ? (values.resolve(operation.listItem).properties ?? {}) : {};
  const fields = (operation.listFields ?? []).filter((field) => properties[field]);
  if (fields.length === 0) return fc.tuple(fc.constant('uid'), fc.uuid());
  return fc.constantFrom(...fields).chain((field) => {
    const value = values
      .valid(properties[field])
      .map((raw) => (raw !== null && typeof raw === 'object' ? JSON.stringify(raw) : String(raw)));
    const wrapped = fc.oneof(
      value,
      fc.tuple(fc.constantFrom('ne', 'gt', 'gte', 'lt', 'lte', 'like'), value).map(([op, text]) => `${op}(${text})`),
      fc.tuple(fc.constantFrom('in', 'range'), value, value).map(([op, a, b]) => `${op}(${a},${b})`),
    );
    return fc.tuple(fc.constant(field), fc.oneof(wrapped, spiked(wrapped)));
  });
}

function listQuery(operation: Operation, values: SchemaValues): fc.Arbitrary<Array<[string, string]>> {
  const fields = operation.listFields ?? ['uid'];
  const field = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: FIELD_NAMES });
  const direction = fc.oneof(fc.constantFrom('ASC', 'DESC', 'asc', 'Desc'), hostileString);
  const sortObject = fc
    .array(fc.tuple(field, fc.oneof(direction, hostileJson)), { maxLength: 4 })
    .map((pairs) => toJsonText(Object.fromEntries(pairs)));
  const sortValue = fc.oneof(sortObject, field, hostileString, hostileJson.map(toJsonText));
  const operator = fc.constantFrom('', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'range', 'like', 'between', 'eq', 'GT');
  const argument = fc.oneof(
    hostileString,
    spiked(fc.constantFrom('Sword', '12', '2026-01-01', 'true', '00000000-0000-4000-8000-000000000000')),
  );
  const filterValue = fc
    .tuple(operator, fc.array(argument, { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([op, args, closed]) => (op === '' ? args[0] : `${op}(${args.join(',')}${closed ? ')' : ''}`));
  const pair: fc.Arbitrary<[string, string]> = fc.oneof(
    fc.tuple(fc.constant('limit'), fc.oneof(hostileString, fc.integer({ min: -5, max: 2000 }).map(String))),
    fc.tuple(fc.constant('skip'), fc.oneof(hostileString, fc.integer({ min: -5, max: 2 ** 53 }).map(String))),
    fc.tuple(fc.constant('sort'), sortValue),
    fc.tuple(
      field.map((name) => `sort[${name}]`),
      direction,
    ),
    fc.tuple(field, filterValue),
    typedFilterValue(operation, values),
    typedFilterValue(operation, values),
  );
  return fc.array(pair, { maxLength: 4 });
}

function otherQuery(operation: Operation): fc.Arbitrary<Array<[string, string]>> {
  const names = operation.queryParameters.map((parameter) => parameter.name);
  const name = names.length > 0 ? fc.oneof(fc.constantFrom(...names), FIELD_NAMES) : FIELD_NAMES;
  return fc.array(fc.tuple(name, hostileString), { maxLength: 3 });
}

function body(operation: Operation, values: SchemaValues): fc.Arbitrary<{ payload?: string; contentType?: string }> {
  const json = (text: fc.Arbitrary<string>) =>
    fc
      .tuple(
        text,
        fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
      )
      .map(([payload, contentType]) => ({ payload, contentType }));
  const malformed = fc.oneof(
    fc.constantFrom('{', '{"name":', '[1,2', 'nul', '{"a":1}}', "{'a':1}", '{"a":1,}', '\ufeff{}', '{"a":"\u0000"}', ' ', '\u0000'),
    hostileString,
  );
  const oversized = fc.integer({ min: 1, max: 4096 }).map((extra) => `{"name":"${'x'.repeat(1024 * 1024 + extra)}"}`);
  const any = fc.oneof(
    { weight: 3, arbitrary: json(hostileJson.map(toJsonText)) },
    { weight: 2, arbitrary: json(malformed) },
    { weight: 1, arbitrary: json(oversized) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(hostileString, fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }))
        .map(([payload, contentType]) => ({ payload, contentType })),
    },
  );
  if (!operation.body) return fc.oneof({ weight: 8, arbitrary: fc.constant({}) }, { weight: 2, arbitrary: any });
  return fc.oneof(
    { weight: 1, arbitrary: json(values.valid(operation.body).map(toJsonText)) },
    { weight: 5, arbitrary: json(values.withOneFault(operation.body).map(toJsonText)) },
    { weight: 2, arbitrary: json(values.chaos(operation.body).map(toJsonText)) },
    { weight: 2, arbitrary: any },
  );
}

/** One hostile request to `operation`. */
export function fuzzRequest(operation: Operation, targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  const pathValues = fc.tuple(
    ...operation.pathParameters.map((parameter) => {
      const real = targets.pathValue(operation, parameter.name);
      return fc.oneof(
        { weight: real === undefined ? 0 : 6, arbitrary: fc.constant(real ?? '') },
        { weight: 1, arbitrary: fc.uuid() },
        { weight: 3, arbitrary: hostileString },
      );
    }),
  );
  const query = fc.oneof(
    { weight: operation.listFields ? 4 : 0, arbitrary: listQuery(operation, targets.values) },
    { weight: 1, arbitrary: otherQuery(operation) },
    { weight: 1, arbitrary: fc.constant([] as Array<[string, string]>) },
  );
  const extraHeaders = fc.record(
    {
      'if-match': fc.oneof(
        headerValue,
        fc.nat().map((version) => `"${version}"`),
        fc.constantFrom('*', 'W/"0"', '"0", "1"'),
      ),
      'idempotency-key': headerValue,
      'accept-language': headerValue,
      'x-request-id': headerValue,
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      path: pathValues,
      query,
      rawQuery: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      authorization: fc.constantFrom(...targets.authorizations),
      headers: extraHeaders,
      body: body(operation, targets.values),
    })
    .map(({ path, query: pairs, rawQuery, authorization, headers, body: { payload, contentType } }) => {
      let index = 0;
      const url = operation.path.replace(/\{\w+\}/g, () => percentEncode(path[index++])) + queryText(pairs, rawQuery);
      const all: Record<string, string> = { ...headers };
      if (authorization) all.authorization = authorization;
      if (contentType) all['content-type'] = contentType;
      return { method: operation.method, url, headers: all, payload };
    });
}
