import pg from 'pg';
import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { clientErrorBody, toErrorBody } from './api-exception.filter.js';

function databaseError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = 'FATAL';
  return error;
}

describe('database errors reaching the error filter', () => {
  it('map a shutting-down server to 503 whether or not TypeORM wrapped the error', () => {
    const raw = databaseError('57P01', 'terminating connection due to administrator command');
    expect(toErrorBody(raw, 'r1')).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    const wrapped = new QueryFailedError('COMMIT', [], raw);
    expect(toErrorBody(wrapped, 'r2')).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
  });

  it('map a transaction whose connection died (TypeORM released it) to 503, whichever way it is reported', () => {
    for (const released of [new QueryRunnerAlreadyReleasedError(), new QueryRunnerProviderAlreadyReleasedError()]) {
      expect(toErrorBody(released, 'r')).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    }
  });

  it('map constraint violations to 409 and bad values to 400', () => {
    expect(toErrorBody(new QueryFailedError('INSERT', [], databaseError('23505', 'duplicate key')), 'r')).toMatchObject({
      status: 409,
      code: 'DUPLICATE',
    });
    expect(toErrorBody(databaseError('22P02', 'invalid input syntax'), 'r')).toMatchObject({ status: 400 });
  });

  it("map a number or date out of its column's range to 400: the safety net behind the services' own checks", () => {
    for (const [code, message] of [
      ['22003', 'integer out of range'],
      ['22008', 'date/time field value out of range'],
    ]) {
      expect(toErrorBody(new QueryFailedError('UPDATE', [], databaseError(code, message)), 'r')).toMatchObject({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
  });

  it('do not take a Node error code for a SQLSTATE', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(toErrorBody(reset, 'r')).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    const other = Object.assign(new Error('something odd'), { code: '12345' });
    expect(toErrorBody(other, 'r')).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
  });
});

describe("what Node.js's HTTP parser refuses", () => {
  const parserError = (code: string, reason: string) => Object.assign(new Error(`Parse Error: ${reason}`), { code, reason });

  it('answers headers too large with 431, headers too slow with 408, and other parse errors with 400 MALFORMED_REQUEST', () => {
    expect(clientErrorBody(parserError('HPE_HEADER_OVERFLOW', 'Header overflow'), 'r1')).toEqual({
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      message: "the request's headers are larger than 16 KiB in all",
      requestId: 'r1',
    });
    const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(clientErrorBody(timeout, 'r2')).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', requestId: 'r2' });
    expect(clientErrorBody(parserError('HPE_INVALID_HEADER_TOKEN', 'Invalid header token'), 'r3')).toEqual({
      status: 400,
      code: 'MALFORMED_REQUEST',
      message: 'the request is not valid HTTP/1.1: Invalid header token',
      requestId: 'r3',
    });
    expect(clientErrorBody(new Error('Parse Error: Invalid method'), 'r4')).toMatchObject({
      status: 400,
      message: 'the request is not valid HTTP/1.1: Invalid method',
    });
  });
});
