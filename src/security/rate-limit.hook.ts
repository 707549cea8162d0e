import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ApiException } from '../common/errors.js';
import { retryAfterOf, toErrorBody } from '../common/api-exception.filter.js';
import { API_HEADERS } from './http-security.js';
import { Budget } from '../common/rate-limit.decorators.js';
import type { RateLimiter } from './rate-limiter.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No budget applies to the route (@NoRateLimit: health probes, metrics scrapes). */
    notRateLimited?: boolean;
  }
}

/**
 * Spends the per-address budget (Budget.IP) as soon as a request's headers are read, before its body
 * is: a guard runs after the body has been read and parsed, so bodies the parser refuses (a megabyte
 * of values past the route's budget) were never counted at all. The other budgets need the caller
 * or the route's Nest metadata and stay in RateLimitGuard. Preflights are the browser's, not the
 * client's, and are not counted, nor are the pages under `pagePaths` (the Swagger UI, the console).
 */
export function spendAddressBudgetOnRequest(fastify: FastifyInstance, limiter: RateLimiter, logger: Logger, pagePaths: string[]): void {
  if (!limiter.enabled) return;
  const isPage = (route: string | undefined) =>
    route !== undefined && pagePaths.some((path) => route === path || route.startsWith(`${path}/`));
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS' || request.routeOptions.config.notRateLimited || isPage(request.routeOptions.url)) return;
    try {
      await limiter.spend(Budget.IP, limiter.byAddress(request.ip));
    } catch (error) {
      if (!(error instanceof ApiException)) {
        // The storage fails over by itself (FailoverThrottlerStorage); anything else must not cost the request.
        logger.error({ err: error, requestId: request.id }, 'the per-address rate limit could not be counted');
        return;
      }
      const body = toErrorBody(error, request.id);
      // A body that would follow is not read: the connection closes instead of reading it only to drop it.
      const bodyFollows = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
      if (bodyFollows) void reply.header('Connection', 'close');
      return reply
        .code(body.status)
        .headers(API_HEADERS)
        .header('Retry-After', String(retryAfterOf(error, body)))
        .type('application/json; charset=utf-8')
        .send(body);
    }
  });
}
