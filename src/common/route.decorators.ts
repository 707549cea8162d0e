import { applyDecorators, createParamDecorator, ExecutionContext, Param, ParseUUIDPipe } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiQuery,
  ApiResponse,
  ApiExtension,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import type { Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { badRequest, ErrorBody, ErrorCode } from './errors.js';
import { queryableFields } from './fields.js';
import { BODY_NODES, type BodyNodesFamily, LIMITS } from './limits.js';
import {
  DEFAULT_LIMIT,
  filterPattern,
  MAX_LIMIT,
  MAX_PARAMETER_LENGTH,
  MAX_VALUE_LENGTH,
  parseListQuery,
  type QueryableFields,
  sortPattern,
} from './list-query.js';

/** A record id from the path; a malformed one is 400 (an unknown one is the service's 404). */
export const UidParam = (name = 'id') =>
  Param(
    name,
    new ParseUUIDPipe({
      exceptionFactory: () => badRequest(`${name} must be a UUID`, [{ field: name, message: 'must be a UUID' }]),
    }),
  );

/** Applies method decorators from a parameter decorator, so that a parameter documents itself. */
const documenting =
  (...decorators: MethodDecorator[]) =>
  (target: object, key: string | symbol | undefined): void => {
    for (const decorator of decorators) decorator(target, key!, Object.getOwnPropertyDescriptor(target, key!)!);
  };

/** `If-Match: "3"`: the version a write builds on (parsed by versions.ts; CONTRACT.md section 3). */
export const IF_MATCH_PATTERN = '^\\s*(?:\\*|(?:W/)?"?[0-9]{1,10}"?)\\s*$';

/** The `If-Match` header of a versioned write: optional, and documented with its form. */
/**
 * One query parameter's value, as @Query(name) gives it, but a parameter sent more than once
 * (`?a=1&a=2`, which Fastify reads as an array) is a 400 rather than an array where a string is typed.
 */
export const QueryValue = createParamDecorator((name: string, context: ExecutionContext): string | undefined => {
  const value = (context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, unknown>)[name];
  if (value === undefined || typeof value === 'string') return value;
  throw badRequest(`${name} must be given once`, [{ field: name, message: 'given more than once' }]);
});

export const IfMatch = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<FastifyRequest>().headers['if-match'],
  [
    documenting(
      ApiHeader({
        name: 'If-Match',
        required: false,
        description: 'The version the write builds on, as the record\'s ETag (`"3"`); `*` or absent: whatever the current one is.',
        // "0": the version of a record just created, so that the example works as sent.
        schema: { type: 'string', pattern: IF_MATCH_PATTERN, example: '"0"' },
      }),
    ),
  ],
);

/**
 * The list rules of docs/CONTRACT.md section 2 over the entity's @Filterable() fields (limit, skip,
 * sort, filters), parsed from the query and documented from the same fields: each filterable field is
 * a query parameter whose pattern is the filter syntax the parser takes.
 */
export const ListQueryParam =
  (entity: Type): ParameterDecorator =>
  (target, key, index) => {
    parsedListQuery(entity)(target, key, index);
    documenting(...listQueryDocs(queryableFields(entity)))(target, key);
  };

const parsedListQuery = createParamDecorator((entity: Type, context: ExecutionContext) =>
  parseListQuery(context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, string>, queryableFields(entity)),
);

function listQueryDocs(fields: QueryableFields): MethodDecorator[] {
  const names = Object.keys(fields);
  return [
    ApiQuery({
      name: 'limit',
      required: false,
      description:
        'Records at most. An answer also holds at most LIST_MAX_BYTES of records (4 MiB by default): a page that would pass ' +
        'it ends early and says where the next starts in `X-Next-Skip`.',
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    }),
    ApiQuery({ name: 'skip', required: false, schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 } }),
    ApiQuery({
      name: 'sort',
      required: false,
      description:
        'A sortable field\'s name (ascending), or a JSON object of fields and orders, e.g. {"dateCreated":"DESC"}. ' +
        `Sortable: ${names.join(', ')}. Default: dateCreated ASC, uid ASC; uid always breaks ties. Not together with sort[field].`,
      schema: { type: 'string', pattern: sortPattern(names), maxLength: MAX_PARAMETER_LENGTH },
      // Beside the schema, not in it: Swagger UI shows it, but "Try it out" does not send it.
      example: '{"dateCreated":"DESC"}',
    }),
    ...names.map((name) =>
      ApiQuery({
        name: `sort[${name}]`,
        required: false,
        description: `Sorts on ${name}, ASC or DESC (the service takes either in any case); several sort[…] parameters apply in their order. Not together with sort.`,
        // No example: Swagger UI's "Try it out" would send it, next to sort's own (a 400). An enum of the
        // upper-case forms rather than a case-blind pattern: generators make a type of an enum.
        enum: ['ASC', 'DESC'],
        enumName: 'SortDirection',
      }),
    ),
    ...Object.entries(fields).map(([name, type]) => {
      const pattern = filterPattern(type);
      const operators =
        type === 'string'
          ? 'like(text) (case-insensitive substring), ne(x), gt(x), gte(x), lt(x), lte(x), in(a,b,…), range(low,high)'
          : type === 'boolean'
            ? 'ne(x), in(a,b)'
            : 'ne(x), gt(x), gte(x), lt(x), lte(x), in(a,b,…) (up to 100 values), range(low,high) (inclusive)';
      return ApiQuery({
        name,
        required: false,
        description: `Filters on ${name}: a value (equality), or ${operators}. A value is at most ${MAX_VALUE_LENGTH} characters, the parameter ${MAX_PARAMETER_LENGTH}.`,
        // Text filters have no pattern: the limit the parser puts on a value is their bound (a like() of
        // the longest value is a few characters longer, and taken).
        schema: { type: 'string', ...(pattern ? { pattern, maxLength: MAX_PARAMETER_LENGTH } : { maxLength: MAX_VALUE_LENGTH }) },
      });
    }),
  ];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers one record: sent with `ETag: "<version>"` (@RecordResponse, sendRecordHeaders). */
    sendsETag?: boolean;
    /** The route creates a record: its answer says where the record is (`Location`). */
    sendsLocation?: boolean;
    /** The JSON values its body may hold (@BodyNodes); `standard` when unset. */
    bodyNodes?: BodyNodesFamily;
    /** Its answer holds stored JSON texts (StoredJson), written as they are. */
    storedJson?: boolean;
  }
}

const ETAG_HEADER = {
  ETag: {
    required: true,
    description: 'The record\'s version, quoted (`"3"`): send it back as If-Match to update safely.',
    schema: { type: 'string', example: '"0"' },
  },
};
const LOCATION_HEADER = {
  Location: {
    required: true,
    description: 'The path of the record created, e.g. `/items/{uid}`.',
    schema: { type: 'string', format: 'uri-reference' },
  },
};

/**
 * A route that answers one record: documented with its type (201 for a create), and sent with
 * `ETag: "<version>"` (docs/CONTRACT.md section 3) and, for a create, `Location` by the hook in
 * versions.ts. Routes that answer anything else carry neither, whatever their body holds.
 */
export function RecordResponse(type: Type, options: { status?: 200 | 201; description?: string; streamsBody?: boolean } = {}) {
  const { status = 200, description, streamsBody } = options;
  return applyDecorators(
    status === 201
      ? ApiCreatedResponse({ type, description, headers: { ...ETAG_HEADER, ...LOCATION_HEADER } })
      : ApiOkResponse({ type, description, headers: ETAG_HEADER }),
    FastifyRouteConfig({ sendsETag: true, sendsLocation: status === 201, ...(streamsBody && { streamsBody }) }),
  );
}

/**
 * Settings of the route's Fastify `config` (what its hooks and body parser read), merged with those
 * other decorators set: Nest's own RouteConfig replaces the whole object, so two of them on one route
 * would lose the first.
 */
export const FastifyRouteConfig =
  (config: Record<string, unknown>): MethodDecorator =>
  (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const earlier = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as Record<string, unknown> | undefined;
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...earlier, ...config }, handler);
  };

/**
 * The JSON values a route's body may hold, when more than the standard family's (src/common/limits.ts):
 * read by the body parser before it parses, and stated in the document as the operation's
 * `x-body-limits` (every operation with a body states its own).
 */
export const BodyNodes = (family: BodyNodesFamily) =>
  applyDecorators(FastifyRouteConfig({ bodyNodes: family }), ApiExtension('x-body-limits', bodyLimitsOf(family)));

/** What a body of the family may hold, as the document states it. */
export const bodyLimitsOf = (family: BodyNodesFamily) => ({
  family,
  bytes: LIMITS.bodyBytes,
  values: BODY_NODES[family],
  depth: LIMITS.bodyDepth,
});

/** The header of a list page the byte budget cut short (src/common/page.ts). */
export const NEXT_SKIP_HEADER = {
  'X-Next-Skip': {
    description:
      'Only on a page that LIST_MAX_BYTES cut short (it holds fewer than `limit` records though more follow): the `skip` of the next page.',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** An `{id}` path parameter, documented. */
export const ApiUidParam = (name = 'id', what = 'record') =>
  ApiParam({ name, description: `The ${what}'s uid (UUID).`, format: 'uuid', type: 'string' });

type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 416 | 503;

type ErrorResponseOptions = { description: string; example: ErrorBody };

const ERROR_RESPONSES: Record<ErrorStatus, (options: ErrorResponseOptions) => MethodDecorator & ClassDecorator> = {
  400: (options) => ApiBadRequestResponse({ type: ErrorBody, ...options }),
  401: (options) => ApiUnauthorizedResponse({ type: ErrorBody, ...options }),
  403: (options) => ApiForbiddenResponse({ type: ErrorBody, ...options }),
  404: (options) => ApiNotFoundResponse({ type: ErrorBody, ...options }),
  408: (options) => ApiResponse({ status: 408, type: ErrorBody, ...options }),
  409: (options) => ApiConflictResponse({ type: ErrorBody, ...options }),
  413: (options) => ApiPayloadTooLargeResponse({ type: ErrorBody, ...options }),
  415: (options) => ApiResponse({ status: 415, type: ErrorBody, ...options }),
  416: (options) => ApiResponse({ status: 416, type: ErrorBody, ...options }),
  503: (options) => ApiResponse({ status: 503, type: ErrorBody, ...options }),
};

const DEFAULT_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'VALIDATION_FAILED: bad input (body, query or a malformed id).',
  401: 'UNAUTHORIZED: no token, or an invalid or expired one.',
  403: 'FORBIDDEN: signed in, but not allowed to do this.',
  404: 'NOT_FOUND: no such record, or not one the caller may see.',
  408: 'REQUEST_TIMEOUT: the upload took longer than MEDIA_UPLOAD_TTL; nothing was kept.',
  409: 'VERSION_CONFLICT: the stated version is not the current one.',
  413: 'PAYLOAD_TOO_LARGE: the body is larger than its limit (1 MiB of JSON; MEDIA_MAX_BYTES for a file); nothing was kept.',
  415: 'UNSUPPORTED_MEDIA_TYPE: the media type is not on the allow-list (MEDIA_TYPES).',
  416: 'RANGE_NOT_SATISFIABLE: the Range starts past the end of the file.',
  503: 'DATABASE_UNAVAILABLE or PROVIDER_UNAVAILABLE.',
};

// What a client would see, per code: without an example of its own, every error response in Swagger UI
// shows the ErrorBody schema's example, a 400, even under 401 or 404.
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.VALIDATION_FAILED]: 'limit must not exceed 1000',
  [ErrorCode.UNAUTHORIZED]: 'the token is invalid or has expired: sign in again',
  [ErrorCode.FORBIDDEN]: 'only admins may change the catalog',
  [ErrorCode.NOT_FOUND]: 'item 0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70 not found',
  [ErrorCode.VERSION_CONFLICT]: 'item 0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70 is at version 4, not 3: read it again and retry',
  [ErrorCode.BANNED]: 'banned until 2026-12-24T00:00:00.000Z',
  [ErrorCode.REFRESH_CONFLICT]:
    'this refresh token was just used by another request: use the tokens that request received (nothing was revoked)',
  [ErrorCode.NO_SUCH_ACCOUNT]: 'no account has this device id (send create: true, or leave it out, to make one)',
  [ErrorCode.IDENTITY_IN_USE]: 'this device is linked to another account: sign in with it, or unlink it there first',
  [ErrorCode.LAST_IDENTITY]: 'this would leave the account without a way to sign in: link another identity first',
  [ErrorCode.DATABASE_UNAVAILABLE]: 'the database is unavailable: try again shortly',
  [ErrorCode.PROVIDER_UNAVAILABLE]: 'idp1 is unavailable: try again shortly',
};

/** The example of an error response: the first code its description names. */
function errorExample(status: ErrorStatus, description: string): ErrorBody {
  const named = description.match(/[A-Z][A-Z_]{2,}/)?.[0];
  const code = named && named in ErrorCode ? (named as ErrorCode) : ErrorCode.VALIDATION_FAILED;
  const message =
    EXAMPLE_MESSAGES[code] ??
    description
      .slice(description.indexOf(':') + 1)
      .split(';')[0]
      .trim();
  return {
    status,
    code,
    message,
    requestId: '5d1c8f0e-2b7a-4c39-8e61-9f4a3b2d7c15',
    ...(code === ErrorCode.VALIDATION_FAILED ? { errors: [{ field: 'limit', message: 'must not exceed 1000' }] } : {}),
    ...(code === ErrorCode.VERSION_CONFLICT ? { currentVersion: 4 } : {}),
    ...(code === ErrorCode.BANNED ? { until: '2026-12-24T00:00:00.000Z' } : {}),
  };
}

/** Documents the error responses of a route, each with the ErrorBody schema and an example of its own. */
export function ApiErrors(...statuses: Array<ErrorStatus | [ErrorStatus, string]>) {
  return applyDecorators(
    ...statuses.map((entry) => {
      const [status, description] = Array.isArray(entry) ? entry : [entry, DEFAULT_DESCRIPTIONS[entry]];
      return ERROR_RESPONSES[status]({ description, example: errorExample(status, description) });
    }),
  );
}
