import { HttpStatus } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { retryAfterOf, toErrorBody } from '../common/api-exception.filter.js';
import { ApiException, ErrorCode } from '../common/errors.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { API_HEADERS } from './http-security.js';

/**
 * At most `limit` requests are worked on at once; one more is answered 503 OVERLOADED with
 * `Retry-After: 1` at once, before any of its work. Without a bound, requests that arrive faster than
 * the database serves them wait in the instance (persona queues, the pool's queue) without end: each
 * holds its memory and the event loop's turns, so the instance answers fewer a second the more wait
 * (docs/PERFORMANCE.md, "Recovery after an overload"), and once the overload ends every one still has
 * to be served before a new one is answered in time. Bounded, the wait is at most `limit` answers'
 * worth, and an overload leaves nothing behind.
 *
 * A request counts from its handler's turn (its body read: a client that sends it slowly holds no
 * place) until its answer is ready to send (a slow download holds none either). The routes that need
 * no budget (health probes, metrics scrapes) are never refused: an overloaded instance must still
 * tell so. Not @fastify/under-pressure: it samples the event loop and the heap at an interval, and an
 * overload that waits on the database leaves both quiet while requests pile up.
 */
export function shedRequestsPastInFlight(fastify: FastifyInstance, limit: number, metrics: MetricsService): void {
  let inFlight = 0;
  const counted = new WeakSet<FastifyRequest>();
  metrics.readRequestsInFlightFrom(() => inFlight);
  const release = (request: FastifyRequest) => {
    if (counted.delete(request)) inFlight--;
  };
  fastify.addHook('preHandler', (request, reply, done) => {
    if (request.routeOptions.config.notRateLimited) return done();
    if (inFlight >= limit) {
      metrics.countRequestShed();
      const error = new ApiException(
        HttpStatus.SERVICE_UNAVAILABLE,
        ErrorCode.OVERLOADED,
        `this instance is working on ${limit} requests already (HTTP_REQUESTS_IN_FLIGHT): retry in a moment`,
        {},
        1,
      );
      const body = toErrorBody(error, request.id);
      void reply
        .code(body.status)
        .headers(API_HEADERS)
        .header('Retry-After', String(retryAfterOf(error, body)))
        .type('application/json; charset=utf-8')
        .send(body);
      return;
    }
    inFlight++;
    counted.add(request);
    done();
  });
  // Whichever comes first: the answer is ready (onSend), or it was sent without passing onSend.
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    release(request);
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, _reply, done) => {
    release(request);
    done();
  });
}
