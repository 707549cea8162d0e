import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { getMetadataArgsStorage } from 'typeorm';
import { OPTIONAL_AUTH_EXTENSION } from '../common/auth.decorators.js';
import { ErrorBody, ErrorCode } from '../common/errors.js';
import { bodyAlternatives, hiddenFromDocs, lineage, REQUIRED_KEYS } from '../common/fields.js';
import { ENTITIES } from '../database/data-source-options.js';
import { documentRateLimits } from '../security/rate-limit.openapi.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { documentStorageLimits } from '../storage/storage.openapi.js';

/**
 * The OpenAPI document, served at /docs-json and written to openapi.json by `npm run sdk`: what
 * @nestjs/swagger derives from the controllers and DTOs, then what it cannot derive, stated from the
 * same sources the service runs on (the entities' columns, the guards' rules, the error filter's
 * statuses), and last turned into OpenAPI 3.1, whose schemas are JSON Schema: the tests validate every
 * answer against them.
 */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, documentConfig(), { extraModels: [ErrorBody] });
  documentRateLimits(document);
  documentStorageLimits(document, app.get<AppConfig>(APP_CONFIG));
  declareOptionalAuth(document);
  declareCommonErrors(document);
  declareRequestIds(document);
  declareIntegerColumns(document);
  declareRequiredKeys(document);
  declareBodyAlternatives(document);
  closeRequestBodies(document);
  linkCreatedRecords(document);
  refuseHiddenFields(document);
  return toOpenApi31(document);
}

function documentConfig() {
  return new DocumentBuilder()
    .setTitle('Game backend')
    .setDescription(
      'REST API of the game backend: sign-in through identity providers, sessions and matchmaking, ' +
        'assets, items, achievements, inventories, trades and skill progress.\n\n' +
        'Sign in with `GET /auth/idp1` or `/auth/idp2`, then press **Authorize** and enter ' +
        '`jwt <token>` with the token you got back.\n\n' +
        'Every error answers with the `ErrorBody` JSON (`status`, `code`, `message`, `requestId`). A path ' +
        'called with a method it does not serve answers 405 `METHOD_NOT_ALLOWED` with `Allow`.',
    )
    .setVersion('1')
    .addSecurity('jwt', {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'Enter `jwt <token>` (the word jwt, a space, then the token from /auth/idp1 or /auth/idp2).',
    })
    .build();
}

type Json = Record<string, unknown>;
interface Operation {
  security?: Array<Record<string, string[]>>;
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses: Record<string, Json & { headers?: Json; content?: Record<string, Json> }>;
  operationId?: string;
  [extension: string]: unknown;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

function operations(document: OpenAPIObject): Array<{ path: string; method: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

const REQUEST_ID = '5d1c8f0e-2b7a-4c39-8e61-9f4a3b2d7c15';

function errorResponse(status: number, code: ErrorCode, description: string, message: string, headers?: Json): Json {
  return {
    description,
    ...(headers && { headers }),
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' }, example: { status, code, message, requestId: REQUEST_ID } },
    },
  };
}

/** Optional-auth routes (@OptionalAuth()) take a token or none: `security: [{ jwt: [] }, {}]`, and 401 for a bad one. */
function declareOptionalAuth(document: OpenAPIObject): void {
  for (const { operation } of operations(document)) {
    if (!operation[OPTIONAL_AUTH_EXTENSION]) continue;
    delete operation[OPTIONAL_AUTH_EXTENSION];
    operation.security = [{ jwt: [] }, {}];
    operation.responses['401'] ??= errorResponse(
      401,
      ErrorCode.UNAUTHORIZED,
      'UNAUTHORIZED: a token was sent and is invalid or expired (none at all is fine here).',
      'the token is invalid or has expired: sign in again',
    );
  }
}

/**
 * The errors any operation may meet, whatever its route: the body limits of every write (413, 415;
 * the JSON parser runs before the route), and 503 wherever the database or a provider is needed
 * (every operation but the liveness probe and the metrics scrape).
 */
function declareCommonErrors(document: OpenAPIObject): void {
  const retryAfter = {
    'Retry-After': { required: true, description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  };
  for (const { path, method, operation } of operations(document)) {
    if (['post', 'put', 'patch', 'delete'].includes(method)) {
      operation.responses['413'] ??= errorResponse(
        413,
        ErrorCode.PAYLOAD_TOO_LARGE,
        'PAYLOAD_TOO_LARGE: the body is larger than 1 MiB.',
        'request body is larger than the 1 MiB limit',
      );
      operation.responses['415'] ??= errorResponse(
        415,
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        'UNSUPPORTED_MEDIA_TYPE: a body that is not application/json.',
        'request bodies must be application/json',
      );
      operation.responses['400'] ??= errorResponse(
        400,
        ErrorCode.MALFORMED_JSON,
        'MALFORMED_JSON: the body is not valid JSON; VALIDATION_FAILED: it is refused.',
        'the body is not valid JSON',
      );
    }
    if ((path === '/health' || path === '/metrics') && method === 'get') continue;
    const unavailable = operation.responses['503'];
    if (unavailable) unavailable.headers = { ...unavailable.headers, ...retryAfter };
    else {
      operation.responses['503'] = errorResponse(
        503,
        ErrorCode.DATABASE_UNAVAILABLE,
        'DATABASE_UNAVAILABLE: the database did not answer; retry after `Retry-After` seconds.',
        'the database is unavailable: try again shortly',
        retryAfter,
      );
    }
  }
}

/** Every answer carries `X-Request-Id` (the gateway's, when sane, or one made here). */
function declareRequestIds(document: OpenAPIObject): void {
  const requestId = { required: true, description: 'The request id, also in error bodies and the log line.', schema: { type: 'string' } };
  for (const { operation } of operations(document)) {
    for (const response of Object.values(operation.responses)) response.headers = { 'X-Request-Id': requestId, ...response.headers };
  }
}

/** Integer columns are `integer` in the answers (the Swagger plugin says `number` for any TypeScript number). */
function declareIntegerColumns(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { properties?: Record<string, Json> }>;
  for (const entity of ENTITIES) {
    for (const column of getMetadataArgsStorage().filterColumns(lineage(entity))) {
      const property = schemas[entity.name]?.properties?.[column.propertyName];
      if (property && column.options.type === 'integer') property.type = 'integer';
    }
  }
}

/** Map properties' required keys (REQUIRED_KEYS) become their schema's `required`. */
function declareRequiredKeys(document: OpenAPIObject): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const schema = node as Json;
    if (Array.isArray(schema[REQUIRED_KEYS])) {
      schema.required = schema[REQUIRED_KEYS];
      delete schema[REQUIRED_KEYS];
    }
    Object.values(schema).forEach(visit);
  };
  visit(document.components?.schemas);
}

/** A body of several shapes (@BodyAlternatives()) is documented as a oneOf of them, told apart by a field. */
function declareBodyAlternatives(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>;
  for (const [name, { propertyName, mapping, example }] of bodyAlternatives()) {
    if (!schemas[name]) continue;
    const refs = Object.fromEntries(Object.entries(mapping).map(([value, shape]) => [value, `#/components/schemas/${shape().name}`]));
    for (const ref of Object.values(refs)) {
      if (!schemas[ref.split('/').pop()!])
        throw new Error(`${name}: the shape ${ref} is not in the document: list it in @ApiExtraModels()`);
    }
    schemas[name] = {
      description: schemas[name].description,
      oneOf: [...new Set(Object.values(refs))].map(($ref) => ({ $ref })),
      discriminator: { propertyName, mapping: refs },
      example,
    };
  }
}

/**
 * Request bodies refuse fields they do not know (the validation pipe's forbidNonWhitelisted), down to
 * their nested objects: `additionalProperties: false` on every schema a request body reaches.
 */
function closeRequestBodies(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>;
  const seen = new Set<string>();
  const visit = (schema: unknown): void => {
    if (schema === null || typeof schema !== 'object') return;
    if (Array.isArray(schema)) return schema.forEach(visit);
    const { $ref } = schema as { $ref?: unknown };
    if (typeof $ref === 'string') {
      const name = $ref.split('/').pop()!;
      if (seen.has(name)) return;
      seen.add(name);
      const target = schemas[name];
      if (target?.properties && target.additionalProperties === undefined) target.additionalProperties = false;
      visit(target);
      return;
    }
    Object.values(schema).forEach(visit);
  };
  for (const { operation } of operations(document)) visit(operation.requestBody);
}

/**
 * A create's answer links to the reads and writes of what it created (OpenAPI links), so that
 * generated clients and readers connect `POST /items` with `/items/{id}`; its `Location` says the same.
 */
function linkCreatedRecords(document: OpenAPIObject): void {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const { path, operation } of operations(document)) {
    const created = operation.responses['201'];
    const item = paths[`${path}/{id}`];
    if (!created || !item) continue;
    const links: Json = {};
    for (const [method, target] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method) || !target.operationId) continue;
      links[target.operationId] = {
        operationId: target.operationId,
        parameters: { id: '$response.body#/uid' },
        description: `${method.toUpperCase()} ${path}/{id} of the record created.`,
      };
    }
    created.links = links;
  }
}

/**
 * The Swagger CLI plugin reads @ApiHideProperty() from the source text; a @Secret() field without it
 * would be documented. Such a document is refused, naming the field, before anyone can read it.
 */
function refuseHiddenFields(document: OpenAPIObject): void {
  for (const { schema, property } of hiddenFromDocs()) {
    const shown = (document.components?.schemas?.[schema] as { properties?: Json } | undefined)?.properties;
    if (shown && property in shown)
      throw new Error(`${schema}.${property} is @Secret() but the OpenAPI document shows it: add @ApiHideProperty()`);
  }
}

/**
 * OpenAPI 3.1, whose schemas are plain JSON Schema (2020-12): @nestjs/swagger writes 3.0, whose
 * `nullable` becomes a `null` type; `example` stays (3.1 keeps it, deprecated, beside `examples`).
 */
export function toOpenApi31(document: OpenAPIObject): OpenAPIObject {
  const convert = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(convert);
    if (node === null || typeof node !== 'object') return node;
    const converted: Json = {};
    for (const [key, value] of Object.entries(node)) converted[key] = convert(value);
    if (converted.nullable === true) {
      delete converted.nullable;
      if (typeof converted.type === 'string') {
        converted.type = [converted.type, 'null'];
        if (Array.isArray(converted.enum)) converted.enum = [...(converted.enum as unknown[]), null];
      } else {
        const { description, example, ...rest } = converted;
        return {
          ...(description !== undefined && { description }),
          ...(example !== undefined && { example }),
          anyOf: [rest, { type: 'null' }],
        };
      }
    } else if (converted.nullable === false) {
      delete converted.nullable;
    }
    return converted;
  };
  return { ...(convert(document) as OpenAPIObject), openapi: '3.1.0' };
}
