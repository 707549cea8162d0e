import type { TestResponse } from './test-app.js';

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
