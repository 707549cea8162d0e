import { maxHeaderSize } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AUDIT_REASON_HEADER } from '../audit/admin-audit.interceptor.js';
import { WRITES_EXTENSION } from '../audit/audit.decorators.js';
import { MAX_AUDIT_REASON } from '../audit/audit-rules.js';
import { getMetadataArgsStorage } from 'typeorm';
import { OPTIONAL_AUTH_EXTENSION, PUBLIC_EXTENSION } from '../common/auth.decorators.js';
import { ErrorBody, ErrorCode } from '../common/errors.js';
import { declaredSchemaExamples, hiddenFromDocs, lineage, REQUIRED_KEYS } from '../common/fields.js';
import { bodyLimitsOf } from '../common/route.decorators.js';
import { ENTITIES } from '../entities.js';
import { documentRateLimits } from '../security/rate-limit.openapi.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { documentGuestAccountLimit } from '../auth/guest-accounts.openapi.js';
import { documentPersonaLimit } from '../personas/personas.openapi.js';
import { documentStorageLimits } from '../storage/storage.openapi.js';
import { documentMediaLimits } from '../media/media-files.openapi.js';
import {
  declareAlternatives,
  dropDefaultsFromUpdates,
  dropReadOnlyFromRequests,
  inlineSingleAllOfs,
  openPrimitiveUnions,
  shareComponents,
} from './for-generators.js';
import { describeOperations, TAGS } from './operation-docs.js';

/**
 * The OpenAPI document, served at /docs-json and written to openapi.json by `npm run sdk`: what
 * @nestjs/swagger derives from the controllers and DTOs, then what it cannot derive, stated from the
 * same sources the service runs on (the entities' columns, the guards' rules, the error filter's
 * statuses), and last turned into OpenAPI 3.1, whose schemas are JSON Schema: the tests validate every
 * answer against them.
 */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, documentConfig(), { extraModels: [ErrorBody], operationIdFactory });
  documentRateLimits(document);
  documentStorageLimits(document, app.get<AppConfig>(APP_CONFIG));
  documentPersonaLimit(document, app.get<AppConfig>(APP_CONFIG));
  documentGuestAccountLimit(document);
  documentMediaLimits(document, app.get<AppConfig>(APP_CONFIG));
  declareSecurity(document);
  declareAuditReasons(document);
  declareCommonErrors(document);
  declareRequestIds(document);
  declareColumnTypes(document);
  declareRequiredKeys(document);
  declareSchemaExamples(document);
  declareAlternatives(document);
  openPrimitiveUnions(document);
  dropReadOnlyFromRequests(document);
  dropDefaultsFromUpdates(document);
  closeRequestBodies(document);
  declareBodyLimits(document);
  linkCreatedRecords(document);
  describeOperations(document);
  refuseHiddenFields(document);
  inlineSingleAllOfs(document);
  shareComponents(document);
  return toOpenApi31(document);
}

/**
 * `itemsFindAll`, `sessionsJoin`: the names generated clients give their methods (NSwag's
 * `ItemsFindAllAsync`), from the resource and the route's method rather than the controller's class
 * name (`ItemsController_findAll`), which a client has no business knowing.
 */
function operationIdFactory(controllerKey: string, methodKey: string): string {
  const resource = controllerKey.replace(/Controller$/, '');
  return `${resource[0].toLowerCase()}${resource.slice(1)}${methodKey[0].toUpperCase()}${methodKey.slice(1)}`;
}

function documentConfig() {
  return (
    new DocumentBuilder()
      .setTitle('Game backend')
      .setDescription(
        'REST API of the game backend: sign-in through identity providers, sessions and matchmaking, ' +
          'assets, items, achievements, inventories, trades and skill progress.\n\n' +
          "Sign in with `GET /auth/idp1` or `/auth/idp2` (the provider's token as `Authorization: Bearer <token>`), " +
          'then press **Authorize** and enter the `token` you got back: it is sent as `Authorization: Bearer <token>`. ' +
          '`Authorization: jwt <token>`, the form of earlier clients, is accepted as well.\n\n' +
          'Every error answers with the `ErrorBody` JSON (`status`, `code`, `message`, `requestId`). A path ' +
          'called with a method it does not serve answers 405 `METHOD_NOT_ALLOWED` with `Allow`.',
      )
      .setVersion('1')
      .setLicense('MIT', 'https://opensource.org/license/mit')
      // Relative: the origin that serves the document, so that Swagger UI's "Try it out" stays on it
      // wherever the service runs. A game gives its generated client the service's address.
      .addServer('/', 'The service that serves this document (`npm start` serves it at http://localhost:3000)')
      // One http bearer scheme per token: every generator sends `Authorization: Bearer <token>` for it,
      // where an apiKey header holding "jwt <token>" needed the header written by hand.
      .addSecurity('jwt', {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'Our token, from /auth/idp1, /auth/idp2 or /auth/refresh, sent as `Authorization: Bearer <token>` ' +
          '(`Authorization: jwt <token>` is accepted too).',
      })
      .addSecurity('idp1', {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: "idp1's OpenID Connect token (a JWT it signed), for GET /auth/idp1 only.",
      })
      .addSecurity('idp2', {
        type: 'http',
        scheme: 'bearer',
        description: "idp2's OAuth 2.0 access token (checked by token introspection), for GET /auth/idp2 only.",
      })
      .addSecurityRequirements('jwt')
      .build()
  );
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

/**
 * Who may call each operation, as the global guard decides: our token everywhere (the document's
 * `security`), none on @Public() routes (`security: []`, or the provider token a sign-in route names
 * with @ApiSecurity()), and a token or none on @OptionalAuth() routes (`security: [{ jwt: [] }, {}]`,
 * with 401 for a bad one).
 */
function declareSecurity(document: OpenAPIObject): void {
  document.tags = TAGS;
  for (const { operation } of operations(document)) {
    if (operation[PUBLIC_EXTENSION]) {
      delete operation[PUBLIC_EXTENSION];
      if (!operation.security?.length) operation.security = [];
    }
    operation.security ??= [{ jwt: [] }];
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
 * the JSON parser runs before the route), and 503 wherever the database or a provider is needed, or
 * the instance sheds load (every operation but the liveness probe and the metrics scrape).
 */
function declareCommonErrors(document: OpenAPIObject): void {
  const retryAfter = {
    'Retry-After': { required: true, description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  };
  for (const { path, method, operation } of operations(document)) {
    // Node's HTTP parser answers it before Fastify sees the request, and the connection closes.
    operation.responses['431'] ??= errorResponse(
      431,
      ErrorCode.HEADERS_TOO_LARGE,
      `HEADERS_TOO_LARGE: the request headers are larger than ${maxHeaderSize / 1024} KiB in all (Node.js's limit); the connection is closed.`,
      `the request's headers are larger than ${maxHeaderSize / 1024} KiB in all`,
    );
    if (['post', 'put', 'patch', 'delete'].includes(method)) {
      operation.responses['408'] ??= errorResponse(
        408,
        ErrorCode.REQUEST_TIMEOUT,
        'REQUEST_TIMEOUT: the body did not arrive within `HTTP_BODY_TIMEOUT` of the headers (30 s by default); nothing changed, and the connection is closed.',
        'the body did not arrive within 30000 ms of the headers (HTTP_BODY_TIMEOUT)',
      );
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
    // Shedding refuses any operation but the probes and the scrape (security/requests-in-flight.ts).
    const overloaded = path.startsWith('/health')
      ? ''
      : ' OVERLOADED: the instance is working on HTTP_REQUESTS_IN_FLIGHT requests already and did nothing with this one.';
    const unavailable = operation.responses['503'];
    if (unavailable) {
      unavailable.headers = { ...unavailable.headers, ...retryAfter };
      unavailable.description = `${unavailable.description as string}${overloaded}`;
    } else {
      operation.responses['503'] = errorResponse(
        503,
        ErrorCode.DATABASE_UNAVAILABLE,
        `DATABASE_UNAVAILABLE: the database did not answer.${overloaded} Retry after \`Retry-After\` seconds.`,
        'the database is unavailable: try again shortly',
        retryAfter,
      );
    }
  }
}

/**
 * Every write that takes our token accepts `X-Audit-Reason`, kept in the admin audit when an admin
 * writes (src/audit/): the methods that write, and the GET routes marked `@Writes()`.
 */
function declareAuditReasons(document: OpenAPIObject): void {
  for (const { method, operation } of operations(document)) {
    const marked = operation[WRITES_EXTENSION] === true;
    delete operation[WRITES_EXTENSION];
    if (!operation.security?.some((requirement) => 'jwt' in requirement) || !(marked || method !== 'get')) continue;
    operation.parameters = [
      ...((operation.parameters as Json[] | undefined) ?? []),
      {
        name: AUDIT_REASON_HEADER,
        in: 'header',
        required: false,
        description: `Why an admin makes this change, kept in the admin audit (GET /admin/audit); a player's is not kept. Sent by anyone, it must hold 1 to ${MAX_AUDIT_REASON} characters without control characters, else the answer is 400 \`VALIDATION_FAILED\` naming the header and nothing changes.`,
        // On the parameter, not its schema: a client sends the header only when an admin gives a reason.
        example: 'refund for support ticket #812',
        schema: { type: 'string', minLength: 1, maxLength: MAX_AUDIT_REASON },
      },
    ];
  }
}

/** Every answer carries `X-Request-Id` (the gateway's, when sane, or one made here). */
function declareRequestIds(document: OpenAPIObject): void {
  const requestId = { required: true, description: 'The request id, also in error bodies and the log line.', schema: { type: 'string' } };
  for (const { operation } of operations(document)) {
    for (const response of Object.values(operation.responses)) response.headers = { 'X-Request-Id': requestId, ...response.headers };
  }
}

/**
 * The answers' types as the columns hold them: integer columns are `integer` (the Swagger plugin says
 * `number` for any TypeScript number), uuid columns `format: uuid` (generators make a Guid of it, as
 * they do of the ids in paths).
 */
function declareColumnTypes(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { properties?: Record<string, Json> }>;
  const storage = getMetadataArgsStorage();
  for (const entity of ENTITIES) {
    const chain = lineage(entity);
    const uuidGenerated = new Set(
      storage.generations
        .filter((generation) => chain.includes(generation.target as never) && generation.strategy === 'uuid')
        .map((generation) => generation.propertyName),
    );
    for (const column of storage.filterColumns(chain)) {
      const property = schemas[entity.name]?.properties?.[column.propertyName];
      if (!property) continue;
      if (column.options.type === 'integer') property.type = 'integer';
      if (column.options.type === 'uuid' || uuidGenerated.has(column.propertyName)) {
        const target = property.type === 'array' ? (property.items as Json) : property;
        target.format = 'uuid';
      }
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

/** Bodies whose class gives an example of its own (@SchemaExample()) show it, rather than one composed from the fields. */
function declareSchemaExamples(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>;
  for (const [name, example] of declaredSchemaExamples()) if (schemas[name]) schemas[name].example = example;
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
      // A discriminated base is closed by its shapes (declareAlternatives): closed itself, it would refuse their fields.
      if (target?.properties && target.additionalProperties === undefined && !target.discriminator) target.additionalProperties = false;
      visit(target);
      return;
    }
    Object.values(schema).forEach(visit);
  };
  for (const { operation } of operations(document)) visit(operation.requestBody);
}

/**
 * What a JSON body may hold on every operation that takes one (`x-body-limits`: bytes, JSON values, levels),
 * the standard family's where the route declares none of its own (@BodyNodes).
 */
function declareBodyLimits(document: OpenAPIObject): void {
  for (const { operation } of operations(document)) {
    if (operation.requestBody?.content?.['application/json'] && !operation['x-body-limits'])
      operation['x-body-limits'] = bodyLimitsOf('standard');
  }
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

/** What an open schema (no type: any value) holds beside its words: bounds that apply to strings only. */
const OPEN_SCHEMA_KEYWORDS = new Set(['description', 'example', 'maxLength']);

/**
 * OpenAPI 3.1, whose schemas are plain JSON Schema (2020-12): @nestjs/swagger writes 3.0, whose
 * `nullable` becomes a `null` type (or a oneOf with it, beside a $ref); `example` stays (3.1 keeps it, deprecated, beside `examples`).
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
      } else if (Object.keys(converted).every((key) => OPEN_SCHEMA_KEYWORDS.has(key))) {
        // An open schema (a 64-bit score as openPrimitiveUnions leaves it) beside null would match null
        // twice, which oneOf refuses: the open side takes anything else, within its bounds (a string's maxLength).
        const { description, example, ...bounds } = converted;
        return {
          ...(description !== undefined && { description }),
          ...(example !== undefined && { example }),
          oneOf: [{ not: { type: 'null' }, ...bounds }, { type: 'null' }],
        };
      } else {
        const { description, example, ...rest } = converted;
        // oneOf, not anyOf: the same here (the schema itself never takes null), and the form NSwag reads
        // as nullable (with anyOf it made the field required and non-null).
        return {
          ...(description !== undefined && { description }),
          ...(example !== undefined && { example }),
          oneOf: [rest, { type: 'null' }],
        };
      }
    } else if (converted.nullable === false) {
      delete converted.nullable;
    }
    return converted;
  };
  return { ...(convert(document) as OpenAPIObject), openapi: '3.1.0' };
}
