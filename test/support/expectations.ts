import type { TestResponse } from './test-app.js';

/** A record's date as the service writes it: ISO 8601 in UTC with milliseconds. */
export const ISO_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A record's uid as the service makes it: a version 4 UUID. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The response is the JSON error body with this status and code, quoting the response's request id,
 * and shows no stack trace.
 */
export function expectErrorBody(response: TestResponse, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: expect.objectContaining({
      status,
      code,
      message: expect.any(String),
      requestId: response.headers['x-request-id'],
    }),
  });
  expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
  expect(JSON.stringify(response.body)).not.toMatch(/\n\s+at /);
}

/** The response is a 400 VALIDATION_FAILED whose details name `field`. */
export function expectValidationError(response: TestResponse, field: string): void {
  expectErrorBody(response, 400, 'VALIDATION_FAILED');
  expect((response.body as { errors?: unknown }).errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
}
