import { applyDecorators, createParamDecorator, ExecutionContext, Headers, Param, ParseUUIDPipe } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { badRequest, ErrorBody } from './errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT, parseListQuery, type QueryableFields } from './list-query.js';

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

/** The list rules of CONTRACT.md section 2 applied to this resource's fields: limit, skip, sort, filters. */
export const ListQueryParam = createParamDecorator((fields: QueryableFields, context: ExecutionContext) =>
  parseListQuery(context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, string>, fields),
);

/** Documents limit, skip, sort and the filterable fields of a list or count route. */
export function ApiListQuery(fields: QueryableFields) {
  const names = Object.keys(fields).join(', ');
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
      schema: { type: 'object', additionalProperties: { type: 'string' } },
    }),
  );
}

/** An `{id}` path parameter, documented. */
export const ApiUidParam = (name = 'id', what = 'record') =>
  ApiParam({ name, description: `The ${what}'s uid (UUID).`, format: 'uuid', type: 'string' });

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 503;

const ERROR_RESPONSES: Record<ErrorStatus, (description: string) => MethodDecorator & ClassDecorator> = {
  400: (description) => ApiBadRequestResponse({ type: ErrorBody, description }),
  401: (description) => ApiUnauthorizedResponse({ type: ErrorBody, description }),
  403: (description) => ApiForbiddenResponse({ type: ErrorBody, description }),
  404: (description) => ApiNotFoundResponse({ type: ErrorBody, description }),
  409: (description) => ApiConflictResponse({ type: ErrorBody, description }),
  503: (description) => ApiResponse({ status: 503, type: ErrorBody, description }),
};

const DEFAULT_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'VALIDATION_FAILED: bad input (body, query or a malformed id).',
  401: 'UNAUTHORIZED: no token, or an invalid or expired one.',
  403: 'FORBIDDEN: signed in, but not allowed to do this.',
  404: 'NOT_FOUND: no such record, or not one the caller may see.',
  409: 'VERSION_CONFLICT: the stated version is not the current one.',
  503: 'DATABASE_UNAVAILABLE or PROVIDER_UNAVAILABLE.',
};

/** Documents the error responses of a route, each with the ErrorBody schema. */
export function ApiErrors(...statuses: Array<ErrorStatus | [ErrorStatus, string]>) {
  return applyDecorators(
    ...statuses.map((entry) => {
      const [status, description] = Array.isArray(entry) ? entry : [entry, DEFAULT_DESCRIPTIONS[entry]];
      return ERROR_RESPONSES[status](description);
    }),
  );
}
