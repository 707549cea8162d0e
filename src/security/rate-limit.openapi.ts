import type { OpenAPIObject } from '@nestjs/swagger';
import { NOT_RATE_LIMITED } from '../common/rate-limit.decorators.js';

/**
 * Adds the 429 answer to every operation the rate limiter guards (all but those marked
 * @NoRateLimit()), so that clients generated from the document know to expect it. Written out in each
 * operation, as the other error answers are, rather than as a shared component.
 */
export function documentRateLimits(document: OpenAPIObject): OpenAPIObject {
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations) as Array<Record<string, unknown>>) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      if (operation[NOT_RATE_LIMITED]) {
        delete operation[NOT_RATE_LIMITED];
        continue;
      }
      (operation.responses as Record<string, unknown>)['429'] = {
        description: 'RATE_LIMITED: too many requests from this user or address in the last minute; retry after `Retry-After` seconds.',
        headers: {
          'Retry-After': { required: true, description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
        },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/ErrorBody' },
            example: {
              status: 429,
              code: 'RATE_LIMITED',
              message: 'too many requests for this user: at most 600 a minute; retry in 12 s',
              requestId: '5d1c8f0e-2b7a-4c39-8e61-9f4a3b2d7c15',
            },
          },
        },
      };
    }
  }
  return document;
}
