import { getSchemaPath, type OpenAPIObject } from '@nestjs/swagger';
import { declaredAlternatives } from '../common/fields.js';

/**
 * The passes that make the document one client generators get right, not merely a valid one: NSwag,
 * openapi-generator and the TypeScript generators each read a subset of OpenAPI, and the shapes below
 * are the ones every one of them models (issue 27 lists what each got wrong before).
 */

type Json = Record<string, unknown>;
type Schema = Json & { properties?: Record<string, Json>; required?: string[]; description?: string };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

function schemasOf(document: OpenAPIObject): Record<string, Schema> {
  document.components ??= {};
  document.components.schemas ??= {};
  return document.components.schemas as Record<string, Schema>;
}

function operationsOf(document: OpenAPIObject): Array<Json & { requestBody?: Json; responses: Record<string, Json>; parameters?: Json[] }> {
  return Object.values(document.paths).flatMap((item) =>
    Object.entries(item as Record<string, never>)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([, operation]) => operation),
  );
}

const refTo = (name: string) => `#/components/schemas/${name}`;
const nameOf = (ref: string) => ref.split('/').pop()!;

/** The names of the schemas `roots` reach through $ref, transitively. */
export function reachedSchemas(document: OpenAPIObject, roots: unknown[]): Set<string> {
  const schemas = schemasOf(document);
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const { $ref } = node as { $ref?: unknown };
    if (typeof $ref === 'string' && $ref.startsWith('#/components/schemas/')) {
      const name = nameOf($ref);
      if (seen.has(name)) return;
      seen.add(name);
      visit(schemas[name]);
    }
    Object.values(node).forEach(visit);
  };
  roots.forEach(visit);
  return seen;
}

/**
 * A body or an answer of several shapes (@Alternatives()) as generators model inheritance: the class's
 * schema is the base, with the field that tells the shapes apart (required) and the fields every shape
 * has alike, and a discriminator naming each shape; each shape is an allOf of the base and its own
 * fields, and a oneOf listing the shapes becomes the base. A oneOf collapsed to its first shape in
 * NSwag (an award could not be sent, every event read as a ticket's). Request shapes are closed with
 * unevaluatedProperties: additionalProperties would not see the base's fields.
 */
export function declareAlternatives(document: OpenAPIObject): void {
  const schemas = schemasOf(document);
  const requests = reachedSchemas(
    document,
    operationsOf(document).map((operation) => operation.requestBody),
  );
  for (const [name, { propertyName, mapping, description, example }] of declaredAlternatives()) {
    const refs = Object.fromEntries(Object.entries(mapping).map(([value, shape]) => [value, getSchemaPath(shape())]));
    const shapeNames = [...new Set(Object.values(refs).map(nameOf))];
    for (const shape of shapeNames) {
      if (!schemas[shape]) throw new Error(`${name}: the shape ${shape} is not in the document: list it in @ApiExtraModels()`);
    }
    const shapes = shapeNames.map((shape) => schemas[shape]);
    const [first, ...others] = shapes;
    const requiredIn = (shape: Schema, property: string) => shape.required?.includes(property) ?? false;
    const shared = Object.keys(first.properties ?? {}).filter(
      (property) =>
        property !== propertyName &&
        others.every(
          (shape) =>
            JSON.stringify(shape.properties?.[property]) === JSON.stringify(first.properties?.[property]) &&
            requiredIn(shape, property) === requiredIn(first, property),
        ),
    );
    const declared = schemas[name]?.properties?.[propertyName] ?? { type: 'string', enum: Object.keys(refs) };
    const { default: _default, description: _description, example: _example, ...discriminator } = declared;
    schemas[name] = {
      type: 'object',
      ...(schemas[name]?.description !== undefined && { description: schemas[name].description }),
      required: [propertyName, ...shared.filter((property) => requiredIn(first, property))],
      properties: {
        [propertyName]: { ...discriminator, description },
        ...Object.fromEntries(shared.map((property) => [property, first.properties![property]])),
      },
      discriminator: { propertyName, mapping: refs },
      example,
    };
    for (const shapeName of shapeNames) {
      const shape = schemas[shapeName];
      const own = Object.entries(shape.properties ?? {}).filter(([property]) => property !== propertyName && !shared.includes(property));
      const required = (shape.required ?? []).filter((property) => own.some(([ownProperty]) => ownProperty === property));
      const value = Object.keys(refs).find((key) => nameOf(refs[key]) === shapeName)!;
      schemas[shapeName] = {
        ...(shape.description !== undefined && { description: shape.description }),
        allOf: [{ $ref: refTo(name) }, { type: 'object', ...(required.length > 0 && { required }), properties: Object.fromEntries(own) }],
        ...(requests.has(name) && { unevaluatedProperties: false }),
        example: {
          [propertyName]: value,
          ...Object.fromEntries(
            Object.entries(shape.properties ?? {})
              .filter(([property, schema]) => property !== propertyName && schema.example !== undefined)
              .map(([property, schema]) => [property, schema.example]),
          ),
        },
      };
    }
    const listed = JSON.stringify([...shapeNames].sort());
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach(visit);
      const schema = node as Json & { oneOf?: Array<{ $ref?: string }> };
      if (Array.isArray(schema.oneOf) && JSON.stringify(schema.oneOf.map((option) => nameOf(String(option.$ref))).sort()) === listed) {
        delete schema.oneOf;
        schema.$ref = refTo(name);
        return;
      }
      Object.values(node).forEach(visit);
    };
    visit(document.paths);
  }
}

const PRIMITIVE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
};

/**
 * A value that may be a string, a number or a boolean (stat and statistic values, criteria bounds,
 * skill progress) as an open schema that says so in words: generators turn a oneOf of primitives into
 * one of them (NSwag made stat values strings) or into a type array they read as a number, while an
 * open schema is an `object` in C# and `unknown` in TypeScript, which hold any of them. The bound on
 * strings stays: `maxLength` applies to strings only.
 */
export function openPrimitiveUnions(document: OpenAPIObject): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const schema = node as Schema & { oneOf?: Schema[] };
    const options = schema.oneOf;
    if (Array.isArray(options) && options.length > 1 && options.every((option) => typeof option.type === 'string' && !option.$ref)) {
      const names = options.map((option) => PRIMITIVE_NAMES[option.type as string] ?? String(option.type));
      const maxLength = options.find((option) => option.type === 'string')?.maxLength as number | undefined;
      const kinds = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
      const limit = maxLength === undefined ? '' : ` (a string of at most ${maxLength} characters)`;
      delete schema.oneOf;
      schema.description = [schema.description, `${kinds[0].toUpperCase()}${kinds.slice(1)}${limit}.`].filter(Boolean).join(' ');
      if (maxLength !== undefined) schema.maxLength = maxLength;
      return;
    }
    Object.values(node).forEach(visit);
  };
  visit(document.components?.schemas);
}

/**
 * Request bodies without the read-only fields: a client generated from a schema sends what the schema
 * holds, so `uid`, the dates or `hostUid` went back with every update NSwag made. The service still
 * takes a record read back whole (docs/CONTRACT.md section 1): each such body's description says so.
 * The request schemas are not answers' schemas (the DTOs are their own classes); one that were both
 * would lose fields its answers hold, so that is refused here.
 */
export function dropReadOnlyFromRequests(document: OpenAPIObject): void {
  const schemas = schemasOf(document);
  const operations = operationsOf(document);
  const requests = reachedSchemas(
    document,
    operations.map((operation) => operation.requestBody),
  );
  const answers = reachedSchemas(
    document,
    operations.map((operation) => operation.responses),
  );
  for (const name of requests) {
    const schema = schemas[name];
    const readOnly = Object.entries(schema.properties ?? {})
      .filter(([, property]) => property.readOnly === true)
      .map(([property]) => property);
    if (readOnly.length === 0) continue;
    if (answers.has(name)) throw new Error(`${name} is both a request body and an answer: give the request its own class`);
    for (const property of readOnly) delete schema.properties![property];
    if (schema.required) schema.required = schema.required.filter((property) => !readOnly.includes(property));
    const fields = readOnly.map((property) => `\`${property}\``).join(', ');
    schema.description = [
      schema.description,
      `A record read back whole is taken too: its read-only fields (${fields}) are ignored, whatever their type, ` +
        'except `uid`, which must then be a UUID and, on an update, the id of the record updated.',
    ]
      .filter(Boolean)
      .join('\n\n');
  }
}

/**
 * Update bodies without defaults: PUT merges, so an absent field keeps its stored value, while a
 * generator initialises a field that has a default and sends it (an update of a ticket's criteria
 * reset its status to SEARCHING). The create bodies keep them: there they are what the service does.
 */
export function dropDefaultsFromUpdates(document: OpenAPIObject): void {
  const schemas = schemasOf(document);
  const updates = Object.values(document.paths).flatMap((item) => {
    const { put, patch } = item as { put?: Json; patch?: Json };
    return [put?.requestBody, patch?.requestBody].filter(Boolean);
  });
  for (const name of reachedSchemas(document, updates)) {
    for (const property of Object.values(schemas[name].properties ?? {})) delete property.default;
  }
}

/**
 * `allOf` with a single `$ref` (what @nestjs/swagger writes for a $ref with a description beside it)
 * becomes the `$ref` itself: OpenAPI 3.1 lets a $ref have siblings, and some generators make a
 * needless wrapper type of a one-entry allOf.
 */
export function inlineSingleAllOfs(document: OpenAPIObject): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const schema = node as Json & { allOf?: Json[] };
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && typeof schema.allOf[0].$ref === 'string') {
      schema.$ref = schema.allOf[0].$ref;
      delete schema.allOf;
    }
    Object.values(node).forEach(visit);
  };
  visit(document.paths);
  visit(document.components);
}

/**
 * Parameters, headers and the error answers of the HTTP layer that many operations share, once, in
 * `components`: a client generator makes one type of each and a reader sees that they are the same.
 * Only identical objects are shared; the first use names them. The route's own errors (400, 403, 404,
 * 409) stay with the route: their examples are the route's.
 */
export function shareComponents(document: OpenAPIObject): void {
  const components = (document.components ??= {}) as Record<string, Record<string, unknown>>;
  const operations = operationsOf(document);

  const share = (kind: 'parameters' | 'responses' | 'headers', name: string, value: Json, uses: number): Json => {
    if (uses < 2) return value;
    const shelf = (components[kind] ??= {});
    const text = JSON.stringify(value);
    let key = name;
    for (let n = 2; shelf[key] !== undefined && JSON.stringify(shelf[key]) !== text; n++) key = `${name}${n}`;
    shelf[key] = value;
    return { $ref: `#/components/${kind}/${key}` };
  };
  const count = (values: Json[]) => {
    const counts = new Map<string, number>();
    for (const value of values) counts.set(JSON.stringify(value), (counts.get(JSON.stringify(value)) ?? 0) + 1);
    return (value: Json) => counts.get(JSON.stringify(value)) ?? 0;
  };

  const responses = operations.flatMap((operation) => Object.values(operation.responses));
  const headers = responses.flatMap((response) => Object.values((response.headers ?? {}) as Record<string, Json>));
  const headerUses = count(headers);
  for (const response of responses) {
    const own = response.headers as Record<string, Json> | undefined;
    if (!own) continue;
    for (const [name, header] of Object.entries(own)) own[name] = share('headers', componentName(name), header, headerUses(header));
  }

  const responseUses = count(responses);
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!SHARED_STATUSES.includes(status)) continue;
      operation.responses[status] = share('responses', responseName(status, response), response, responseUses(response));
    }
  }

  const parameterUses = count(operations.flatMap((operation) => operation.parameters ?? []));
  for (const operation of operations) {
    operation.parameters = operation.parameters?.map((parameter) =>
      // Path ids differ per resource in their descriptions, filters in their patterns: headers and paging are shared.
      parameter.in === 'header' || ['limit', 'skip'].includes(String(parameter.name))
        ? share('parameters', componentName(String(parameter.name)), parameter, parameterUses(parameter))
        : parameter,
    );
  }
}

/** The answers of the layers every request passes: the token, body limits, rate limits, header limits, the database. */
const SHARED_STATUSES = ['401', '413', '415', '429', '431', '503'];

/** `If-Match` → `IfMatch`, `id` → `Id`: component names as generators turn them into type names. */
const componentName = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');

/** An error answer's component name: its code (`RATE_LIMITED` → `RateLimited`), else its status. */
function responseName(status: string, response: Json): string {
  const example = (response.content as Record<string, { example?: { code?: unknown } }> | undefined)?.['application/json']?.example;
  const code = typeof example?.code === 'string' ? example.code : undefined;
  return code
    ? code
        .toLowerCase()
        .split('_')
        .map((word) => word[0].toUpperCase() + word.slice(1))
        .join('')
    : `Status${status}`;
}
