import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger, NotFoundException } from '@nestjs/common';
import { maxHeaderSize } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { type AllowedMethods, methodNotAllowed } from './allowed-methods.js';
import { ApiException, type ErrorBody, ErrorCode } from './errors.js';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.VALIDATION_FAILED,
  401: ErrorCode.UNAUTHORIZED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  429: ErrorCode.RATE_LIMITED,
  503: ErrorCode.DATABASE_UNAVAILABLE,
};

/** Errors raised by Fastify itself, before a route handler runs (body parsing, limits). */
const FASTIFY_ERRORS: Record<string, [HttpStatus, ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, ErrorCode.PAYLOAD_TOO_LARGE, 'request body is larger than the 1 MiB limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'request bodies must be application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, ErrorCode.VALIDATION_FAILED, 'Content-Length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, ErrorCode.MALFORMED_JSON, 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, ErrorCode.MALFORMED_JSON, 'the body is not valid JSON'],
  // Raised by the router, before any route runs (see createFastifyAdapter's frameworkErrors).
  FST_ERR_BAD_URL: [400, ErrorCode.VALIDATION_FAILED, 'the URL is not valid: a percent-encoded part is not UTF-8'],
  FST_ERR_MAX_PARAM_LENGTH: [400, ErrorCode.VALIDATION_FAILED, 'a path parameter is too long'],
};

/**
 * Node.js's HTTP parser's refusals, before any request exists (its 'clientError' event, answered by
 * createFastifyAdapter); any other is llhttp's word that the bytes are not HTTP/1.1.
 */
const CLIENT_ERRORS: Record<string, [number, ErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, ErrorCode.REQUEST_TIMEOUT, "the request's headers did not arrive in time (HTTP_HEADERS_TIMEOUT)"],
  HPE_HEADER_OVERFLOW: [431, ErrorCode.HEADERS_TOO_LARGE, `the request's headers are larger than ${maxHeaderSize / 1024} KiB in all`],
};

/** PostgreSQL SQLSTATEs a client can cause, mapped so that they never surface as a 500. */
const DATABASE_ERRORS: Record<string, [HttpStatus, ErrorCode, string]> = {
  '23505': [409, ErrorCode.DUPLICATE, 'a record with these values exists already'],
  '23503': [409, ErrorCode.CONFLICT, 'the record refers to, or is referred to by, another record'],
  '23001': [409, ErrorCode.CONFLICT, 'the record is still referred to by another record'],
  '23502': [400, ErrorCode.VALIDATION_FAILED, 'a required value is missing'],
  '23514': [409, ErrorCode.CONFLICT, 'the change would break a rule of the data'],
  '22P02': [400, ErrorCode.VALIDATION_FAILED, 'a value has the wrong form'],
  '22003': [400, ErrorCode.VALIDATION_FAILED, 'a number is out of range'],
  '22007': [400, ErrorCode.VALIDATION_FAILED, 'a date has the wrong form'],
  '22008': [400, ErrorCode.VALIDATION_FAILED, 'a date is out of range'],
  '22001': [400, ErrorCode.VALIDATION_FAILED, 'a value is too long'],
  // A NUL character (U+0000, JSON "\u0000") in a text or JSON value: PostgreSQL cannot store one.
  '22021': [400, ErrorCode.VALIDATION_FAILED, 'a text holds a character that cannot be stored (U+0000)'],
  '22P05': [400, ErrorCode.VALIDATION_FAILED, 'a text holds a character that cannot be stored (U+0000)'],
  '54001': [400, ErrorCode.VALIDATION_FAILED, 'the request is too complex'],
  '40001': [409, ErrorCode.CONFLICT, 'the record was changed concurrently: retry'],
  '40P01': [409, ErrorCode.CONFLICT, 'the record was changed concurrently: retry'],
  '57014': [503, ErrorCode.DATABASE_UNAVAILABLE, 'the database took too long to answer'],
  '57P01': [503, ErrorCode.DATABASE_UNAVAILABLE, 'the database is restarting'],
  '57P03': [503, ErrorCode.DATABASE_UNAVAILABLE, 'the database is starting up'],
  '53300': [503, ErrorCode.DATABASE_UNAVAILABLE, 'the database has no free connections'],
};

const CONNECTION_ERRORS =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is/i;

const logger = new Logger('Errors');

/** Turns anything thrown while serving a request into the JSON error body of docs/CONTRACT.md section 4. */
export function toErrorBody(error: unknown, requestId: string): ErrorBody {
  const body = (status: number, code: ErrorCode, message: string): ErrorBody => ({ status, code, message, requestId });

  if (error instanceof ApiException) {
    return { ...body(error.getStatus(), error.code, error.message), ...error.extra };
  }
  // Fastify's own errors (body parsing, limits) reach the filter wrapped in an HttpException.
  const fastifyCode =
    ((error as { cause?: unknown })?.cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown })?.code;
  if (typeof fastifyCode === 'string' && FASTIFY_ERRORS[fastifyCode]) {
    return body(...FASTIFY_ERRORS[fastifyCode]);
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response ? [response.message].flat().join('; ') : error.message;
    return body(status, CODE_BY_STATUS[status] ?? (status >= 500 ? ErrorCode.INTERNAL_ERROR : ErrorCode.VALIDATION_FAILED), message);
  }
  // A query's error comes wrapped by TypeORM; one raised outside a query (BEGIN, COMMIT, a connection
  // PostgreSQL terminates while shutting down) arrives as pg's own DatabaseError: both carry SQLSTATE.
  const sqlState = sqlStateOf(error);
  if (sqlState) {
    if (DATABASE_ERRORS[sqlState]) return body(...DATABASE_ERRORS[sqlState]);
    if (sqlState.startsWith('08') || sqlState.startsWith('57P')) {
      return body(503, ErrorCode.DATABASE_UNAVAILABLE, 'the database is unavailable');
    }
  }
  // The connection died mid-transaction: TypeORM released it, and the transaction's next statement says
  // so, in one of two errors depending on whether it ran through the query runner or its EntityManager
  // (the fault tests met the second while PostgreSQL shut down under trade load).
  if (error instanceof QueryRunnerAlreadyReleasedError || error instanceof QueryRunnerProviderAlreadyReleasedError) {
    return body(503, ErrorCode.DATABASE_UNAVAILABLE, 'the database connection was lost');
  }
  if (error instanceof Error && CONNECTION_ERRORS.test(error.message)) {
    return body(503, ErrorCode.DATABASE_UNAVAILABLE, 'the database is unavailable');
  }
  // Fastify errors not listed above carry their own 4xx status (a malformed URL, say).
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return body(statusCode, CODE_BY_STATUS[statusCode] ?? ErrorCode.VALIDATION_FAILED, (error as Error).message);
  }
  logger.error({ err: error, requestId }, 'unexpected error');
  return body(500, ErrorCode.INTERNAL_ERROR, 'unexpected error: quote the request id when reporting it');
}

/** The error body of a connection Node.js's HTTP parser refused ('clientError'): 408, 431, or 400 MALFORMED_REQUEST. */
export function clientErrorBody(error: Error & { code?: string; reason?: string }, requestId: string): ErrorBody {
  const known = error.code === undefined ? undefined : CLIENT_ERRORS[error.code];
  if (known) return { status: known[0], code: known[1], message: known[2], requestId };
  const reason = error.reason ?? error.message.replace(/^Parse Error: /, '');
  return { status: 400, code: ErrorCode.MALFORMED_REQUEST, message: `the request is not valid HTTP/1.1: ${reason}`, requestId };
}

/** The seconds an answer tells its client to wait (`Retry-After`): what a rate limit says; a while, when the database is away. */
export function retryAfterOf(error: unknown, body: ErrorBody): number | undefined {
  if (error instanceof ApiException && error.retryAfterSeconds !== undefined) return error.retryAfterSeconds;
  return body.status === 503 ? 5 : undefined;
}

function sqlStateOf(error: unknown): string | undefined {
  const source: unknown = error instanceof QueryFailedError ? error.driverError : error;
  const { code, severity } = (source ?? {}) as { code?: unknown; severity?: unknown };
  // pg's DatabaseError has a severity; Node's own errors (ECONNRESET…) have codes that are not SQLSTATEs.
  const isDatabaseError = error instanceof QueryFailedError || typeof severity === 'string';
  return isDatabaseError && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** What a request no route matched may fail with before the not-found handler: the router's 404, body parsing's 400, 413, 415. */
const UNROUTED_STATUSES = new Set([400, 404, 413, 415]);

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly allowedMethods?: AllowedMethods) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    let errorBody = toErrorBody(exception, request.id);
    // No route matched: a path that exists under other methods is a 405 naming them, else a 404, also
    // when the not-found route failed first on the body (a QUERY without a Content-Type is a 400 of
    // Fastify's body parsing before the not-found handler runs).
    if (UNROUTED_STATUSES.has(errorBody.status) && request.routeOptions.url === undefined) {
      const allowed = this.allowedMethods?.of(request.url) ?? [];
      if (allowed.length > 0) {
        void reply.header('Allow', allowed.join(', '));
        errorBody = methodNotAllowed(request, allowed);
      } else if (errorBody.status !== 404) {
        errorBody = toErrorBody(new NotFoundException(`Cannot ${request.method} ${request.url.split('?')[0]}`), request.id);
      }
    }
    const retryAfter = retryAfterOf(exception, errorBody);
    if (retryAfter !== undefined) void reply.header('Retry-After', String(retryAfter));
    void reply.status(errorBody.status).type('application/json; charset=utf-8').send(errorBody);
  }
}
