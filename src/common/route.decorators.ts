import { applyDecorators, createParamDecorator, ExecutionContext, Headers, Param, ParseUUIDPipe } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { badRequest, ErrorBody, ErrorCode } from './errors.js';
import { queryableFields } from './fields.js';
import { DEFAULT_LIMIT, MAX_LIMIT, parseListQuery } from './list-query.js';

/** A record id from the path; a malformed one is 400 (an unknown one is the service's 404). */
export const UidParam = (name = 'id') =>
  Param(
    name,
    new ParseUUIDPipe({
      exceptionFactory: () => badRequest(`${name} must be a UUID`, [{ field: name, message: 'must be a UUID' }]),
    }),
  );

/** The `If-Match` header, for versioned writes. */
export const IfMatch = () => Headers('if-match');

/** The list rules of docs/CONTRACT.md section 2 applied to the entity's @Filterable() fields: limit, skip, sort, filters. */
export const ListQueryParam = createParamDecorator((entity: Type, context: ExecutionContext) =>
  parseListQuery(context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, string>, queryableFields(entity)),
);

/** Documents limit, skip, sort and the filterable fields of a list or count route over `entity`. */
export function ApiListQuery(entity: Type) {
  const names = Object.keys(queryableFields(entity)).join(', ');
  return applyDecorators(
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } }),
    ApiQuery({ name: 'skip', required: false, schema: { type: 'integer', minimum: 0, default: 0 } }),
    ApiQuery({
      name: 'sort',
      required: false,
      description:
        `A JSON object of fields and orders, e.g. {"dateCreated":"DESC"}; a bare field name (ascending); or ` +
        `sort[field]=DESC. Sortable: ${names}. Default: dateCreated ASC, uid ASC; uid always breaks ties.`,
      schema: { type: 'string' },
      example: '{"dateCreated":"DESC"}',
    }),
    ApiQuery({
      name: 'filters',
      required: false,
      description:
        `Any of ${names} as a query parameter filters on it: field=value (equality), or field=ne(x), gt(x), ` +
        'gte(x), lt(x), lte(x), in(a,b,...), range(low,high) (inclusive), like(text) (case-insensitive substring).',
      style: 'form',
      explode: true,
      // Without an empty example, Swagger UI's "Try it out" sends additionalProp1=string&…: a 400.
      schema: { type: 'object', additionalProperties: { type: 'string' }, example: {} },
    }),
  );
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers one record, sent with `ETag: "<version>"` (@RecordResponse, sendRecordETags). */
    sendsETag?: boolean;
  }
}

/**
 * A route that answers one record: documented with its type (201 for a create), and sent with
 * `ETag: "<version>"` (docs/CONTRACT.md section 3) by the hook in versions.ts. Routes that answer
 * anything else carry no ETag, whatever their body holds.
 */
export function RecordResponse(type: Type, options: { status?: 200 | 201; description?: string } = {}) {
  const { status = 200, description } = options;
  return applyDecorators(
    status === 201 ? ApiCreatedResponse({ type, description }) : ApiOkResponse({ type, description }),
    RouteConfig({ sendsETag: true }),
  );
}

/** An `{id}` path parameter, documented. */
export const ApiUidParam = (name = 'id', what = 'record') =>
  ApiParam({ name, description: `The ${what}'s uid (UUID).`, format: 'uuid', type: 'string' });

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 503;

type ErrorResponseOptions = { description: string; example: ErrorBody };

const ERROR_RESPONSES: Record<ErrorStatus, (options: ErrorResponseOptions) => MethodDecorator & ClassDecorator> = {
  400: (options) => ApiBadRequestResponse({ type: ErrorBody, ...options }),
  401: (options) => ApiUnauthorizedResponse({ type: ErrorBody, ...options }),
  403: (options) => ApiForbiddenResponse({ type: ErrorBody, ...options }),
  404: (options) => ApiNotFoundResponse({ type: ErrorBody, ...options }),
  409: (options) => ApiConflictResponse({ type: ErrorBody, ...options }),
  503: (options) => ApiResponse({ status: 503, type: ErrorBody, ...options }),
};

const DEFAULT_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'VALIDATION_FAILED: bad input (body, query or a malformed id).',
  401: 'UNAUTHORIZED: no token, or an invalid or expired one.',
  403: 'FORBIDDEN: signed in, but not allowed to do this.',
  404: 'NOT_FOUND: no such record, or not one the caller may see.',
  409: 'VERSION_CONFLICT: the stated version is not the current one.',
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
